// cannbot: the command-line entry point. Parses arguments, runs one subcommand, and turns
// any escaping exception into exit code 2 with a one-line error.
#include <cstdio>
#include <exception>
#include <vector>

#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace cannbot::cli;
  CLI::App app{"cannbot: validated kernel optimisation from profiler data"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cannbot 0.1.0");
  const std::vector<Command> commands = {RegisterValidate(app), RegisterSuggest(app),
                                         RegisterDiagnose(app), RegisterOps(app),
                                         RegisterSkills(app), RegisterServe(app), RegisterCi(app),
                                         RegisterMachine(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitError;
  }
  try {
    for (const Command& command : commands) {
      if (command.subcommand->parsed()) return command.run();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cannbot: internal error: %s\n", e.what());
  }
  return kExitError;
}
