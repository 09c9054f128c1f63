// The VS Code extension `backstep ide vscode --install` writes: a folder with
// a package.json whose main contribution is a debugger type, "backstep",
// that VS Code starts as `BACKSTEP dap` (an executable debug adapter) and
// sends each launch configuration of that type to. With it VS Code shows its
// Step Back and Reverse Continue buttons (the adapter says supportsStepBack);
// extension.js adds Reverse Step Into and Reverse Step Out to the debug
// toolbar (the adapter's custom requests, which DAP has no button for).
// docs/ide-setup.md says how to load it.
#pragma once

#include <string>

namespace backstep::cli {

// The extension's folder name under an extensions directory.
std::string vscode_extension_folder();

// package.json for the adapter at `backstep` (an absolute path).
std::string vscode_extension_manifest(const std::string& backstep);

// extension.js: the reverse step commands.
std::string vscode_extension_script();

// A launch configuration of the extension's type for `trace`, as a JSON
// object's text indented for launch.json's configurations.
std::string vscode_backstep_configuration(const std::string& trace);

// Writes the extension into `extensions_dir` (created if missing), replacing
// an earlier one of this version; returns its folder.
std::string install_vscode_extension(const std::string& extensions_dir, const std::string& backstep);

// ~/.vscode/extensions, where VS Code looks for extensions.
std::string default_vscode_extensions_dir();

}  // namespace backstep::cli
