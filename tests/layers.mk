# tests/layers.mk - the include rules of docs/architecture.md.
TEST_SCRIPTS += tests/layers.sh
