// cannbot: the command-line entry point. Parses arguments, runs one subcommand, and turns
// any escaping exception into exit code 2 with a one-line error.
#include <cstdio>
#include <exception>
#include <vector>

#include "cannbot/ops/op_spec_file.h"
#include "cli/commands.h"

int main(int argc, char** argv) {
  using namespace cannbot::cli;
  CLI::App app{"cannbot: validated kernel optimisation from profiler data"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cannbot 0.1.0");
  // The composition root: the op registry is built here and passed down, never global. The
  // user's op spec directories are added once the arguments are parsed.
  cannbot::ops::Registry registry = cannbot::ops::Registry::BuiltIns();
  std::vector<std::string> ops_dirs;
  app.add_option("--ops-dir", ops_dirs,
                 "Directory of op spec files (docs/op-spec.md) to add to the built-in ops; "
                 "repeatable, accepted by every command")
      ->check(CLI::ExistingDirectory);
  app.fallthrough();
  const std::vector<Command> commands = {
      RegisterValidate(app, registry), RegisterSuggest(app, registry),
      RegisterDiagnose(app, registry), RegisterOps(app, registry),
      RegisterSkills(app, registry),             RegisterServe(app, registry),
      RegisterWorker(app, registry),
      RegisterCi(app, registry),       RegisterMachine(app),
      RegisterEval(app, registry)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitError;
  }
  if (auto added = cannbot::ops::AddOpsDirs(ops_dirs, &registry); !added.ok()) {
    std::fprintf(stderr, "cannbot: %s\n", added.message().c_str());
    return kExitError;
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
