// headroom: the command-line tool. The commands and their flags are in commands.h and
// cli_flags.cc; the work is done in the command files and the shared library.

#include "cli/commands.h"

int main(int argc, char** argv) { return headroom::cli::RunCli(argc, argv); }
