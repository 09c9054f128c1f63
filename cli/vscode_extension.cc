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
    << "  \"activationEvents\": [\"onDebug\"],\n"
    << "  \"contributes\": {\n"
    << "    \"breakpoints\": [{\"language\": \"c\"}, {\"language\": \"cpp\"}],\n"
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

std::string install_vscode_extension(const std::string& extensions_dir, const std::string& backstep) {
  fs::path folder = fs::absolute(extensions_dir) / vscode_extension_folder();
  fs::create_directories(folder);
  write_text(folder / "package.json", vscode_extension_manifest(backstep));
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
