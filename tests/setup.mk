# tests/setup.mk - the set-up `make demo` and `make test` do first: the
# package installer (tools/deps.sh over packages.txt) against fake apt-get
# and sudo, and the build without the CUDA headers.
TEST_SCRIPTS += tests/deps.sh tests/nocuda.sh
