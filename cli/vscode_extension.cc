#include "cli/vscode_extension.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "cli/json_string.h"

namespace backstep::cli {
namespace {

namespace fs = std::filesystem;

// VS Code reads publisher.name-version folders.
constexpr char kPublisher[] = "backstep";
constexpr char kName[] = "backstep-dap";

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

std::string vscode_extension_folder() { return std::string(kPublisher) + "." + kName + "-" + BACKSTEP_VERSION; }

std::string vscode_extension_manifest(const std::string& backstep) {
  std::ostringstream j;
  j << "{\n"
    << "  \"name\": \"" << kName << "\",\n"
    << "  \"publisher\": \"" << kPublisher << "\",\n"
    << "  \"displayName\": \"backstep: reverse debugging of recordings\",\n"
    << "  \"description\": \"Debug a backstep recording forwards and backwards (backstep dap)\",\n"
    << "  \"version\": \"" << BACKSTEP_VERSION << "\",\n"
    << "  \"engines\": {\"vscode\": \"^1.60.0\"},\n"
    << "  \"categories\": [\"Debuggers\"],\n"
    << "  \"activationEvents\": [\"onDebug\", \"onCommand:backstep.reverseStepIn\", "
       "\"onCommand:backstep.reverseStepOut\"],\n"
    << "  \"main\": \"./extension.js\",\n"
    << "  \"contributes\": {\n"
    << "    \"breakpoints\": [{\"language\": \"c\"}, {\"language\": \"cpp\"}],\n"
    // DAP has no reverse step-in or step-out: two commands send the
    // adapter's custom requests, on the debug toolbar beside Step Back.
    << "    \"commands\": [\n"
    << "      {\"command\": \"backstep.reverseStepIn\", \"title\": \"Reverse Step Into\", \"category\": "
       "\"backstep\", \"icon\": \"$(debug-step-into)\"},\n"
    << "      {\"command\": \"backstep.reverseStepOut\", \"title\": \"Reverse Step Out\", \"category\": "
       "\"backstep\", \"icon\": \"$(debug-step-out)\"}\n"
    << "    ],\n"
    << "    \"menus\": {\n"
    << "      \"debug/toolbar\": [\n"
    << "        {\"command\": \"backstep.reverseStepIn\", \"when\": \"debugType == 'backstep'\"},\n"
    << "        {\"command\": \"backstep.reverseStepOut\", \"when\": \"debugType == 'backstep'\"}\n"
    << "      ],\n"
    << "      \"commandPalette\": [\n"
    << "        {\"command\": \"backstep.reverseStepIn\", \"when\": \"debugType == 'backstep'\"},\n"
    << "        {\"command\": \"backstep.reverseStepOut\", \"when\": \"debugType == 'backstep'\"}\n"
    << "      ]\n"
    << "    },\n"
    << "    \"debuggers\": [\n"
    << "      {\n"
    << "        \"type\": \"backstep\",\n"
    << "        \"label\": \"backstep (recording)\",\n"
    << "        \"program\": " << json_string(backstep) << ",\n"
    << "        \"args\": [\"dap\"],\n"
    << "        \"languages\": [\"c\", \"cpp\"],\n"
    << "        \"configurationAttributes\": {\n"
    << "          \"launch\": {\n"
    << "            \"properties\": {\n"
    << "              \"trace\": {\"type\": \"string\", \"description\": \"The recording (a trace directory, or a "
       "name in backstep's trace directory)\"},\n"
    << "              \"pid\": {\"type\": \"number\", \"description\": \"The recorded process to debug (backstep ps "
       "lists them); default: the first\"},\n"
    << "              \"stopOnEntry\": {\"type\": \"boolean\", \"default\": false, \"description\": \"Stop at the "
       "start of the recording\"},\n"
    << "              \"gdbPath\": {\"type\": \"string\", \"default\": \"gdb\", \"description\": \"The gdb that "
       "reads symbols and values\"}\n"
    << "            }\n"
    << "          },\n"
    << "          \"attach\": {\n"
    << "            \"required\": [\"target\"],\n"
    << "            \"properties\": {\n"
    << "              \"target\": {\"type\": \"string\", \"description\": \"A running backstep serve: host:port "
       "(an ssh tunnel's local end), or a Unix socket's path\"},\n"
    << "              \"stopOnEntry\": {\"type\": \"boolean\", \"default\": false, \"description\": \"Stop at the "
       "start of the recording\"},\n"
    << "              \"gdbPath\": {\"type\": \"string\", \"default\": \"gdb\", \"description\": \"The gdb that "
       "reads symbols and values\"}\n"
    << "            }\n"
    << "          }\n"
    << "        },\n"
    << "        \"initialConfigurations\": [\n"
    << "          {\"name\": \"backstep: replay\", \"type\": \"backstep\", \"request\": \"launch\"}\n"
    << "        ],\n"
    << "        \"configurationSnippets\": [\n"
    << "          {\"label\": \"backstep: replay a recording\", \"body\": {\"name\": \"backstep: replay\", "
       "\"type\": \"backstep\", \"request\": \"launch\", \"trace\": \"\"}}\n"
    << "        ]\n"
    << "      }\n"
    << "    ]\n"
    << "  }\n"
    << "}\n";
  return j.str();
}

std::string vscode_backstep_configuration(const std::string& trace) {
  std::ostringstream j;
  j << "    {\n"
    << "      \"name\": \"backstep: replay (reverse buttons)\",\n"
    << "      \"type\": \"backstep\",\n"
    << "      \"request\": \"launch\",\n"
    << "      \"trace\": " << json_string(trace) << ",\n"
    << "      \"stopOnEntry\": false\n"
    << "    }";
  return j.str();
}

std::string vscode_extension_script() {
  // Plain JavaScript against VS Code's API, no dependencies: each command
  // sends its custom request to the session being debugged, for the thread
  // the Call Stack view has selected (VS Code 1.90's activeStackItem; the
  // adapter's current thread on older ones).
  return R"JS('use strict';
// Written by `backstep ide vscode --install`: the reverse step commands of
// the debug type "backstep" (backstep dap's custom requests).
const vscode = require('vscode');

function sender(request) {
  return async () => {
    const session = vscode.debug.activeDebugSession;
    if (!session || session.type !== 'backstep') {
      vscode.window.showWarningMessage('backstep: no backstep debug session is active');
      return;
    }
    const item = vscode.debug.activeStackItem;
    const args = item && item.threadId !== undefined ? { threadId: item.threadId } : {};
    try {
      await session.customRequest(request, args);
    } catch (e) {
      vscode.window.showErrorMessage('backstep: ' + (e && e.message ? e.message : e));
    }
  };
}

function activate(context) {
  context.subscriptions.push(
    vscode.commands.registerCommand('backstep.reverseStepIn', sender('reverseStepIn')),
    vscode.commands.registerCommand('backstep.reverseStepOut', sender('reverseStepOut')));
}

function deactivate() {}

module.exports = { activate, deactivate };
)JS";
}

std::string install_vscode_extension(const std::string& extensions_dir, const std::string& backstep) {
  fs::path folder = fs::absolute(extensions_dir) / vscode_extension_folder();
  fs::create_directories(folder);
  write_text(folder / "package.json", vscode_extension_manifest(backstep));
  write_text(folder / "extension.js", vscode_extension_script());
  write_text(folder / "README.md",
             "# backstep: reverse debugging of recordings\n\n"
             "Written by `backstep ide vscode --install`. Adds the debug type `backstep`, which runs\n"
             "`" + backstep + " dap` as its debug adapter. See backstep's docs/ide-setup.md.\n");
  return folder.string();
}

std::string default_vscode_extensions_dir() {
  const char* home = std::getenv("HOME");
  if (!home || home[0] != '/') throw std::runtime_error("HOME is not set: give --extensions-dir DIR");
  return std::string(home) + "/.vscode/extensions";
}

}  // namespace backstep::cli
