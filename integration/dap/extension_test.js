// The VS Code extension `backstep ide vscode --install` writes, run as VS
// Code runs it, with VS Code's API stubbed: its manifest declares every
// command its menus name and activates on each; activate() registers them;
// each command sends its custom request to the active session, for the
// thread the Call Stack has selected. The stub's session is a real one:
// Microsoft's DAP test client connected to `backstep dap`, so the commands
// are seen to move the replay (Reverse Step Out back to the call, Reverse
// Step Into back into the last call).
//
// Usage: node extension_test.js BACKSTEP TRACE SOURCE, with
// BACKSTEP_VSCODE_EXTENSION the installed extension's folder
// (run_dap_test.py --install-extension).
'use strict';

const assert = require('assert');
const fs = require('fs');
const Module = require('module');
const path = require('path');
const support = require('./dap_test_support');

const [backstep, trace, sourceArg] = process.argv.slice(2);
const folder = process.env.BACKSTEP_VSCODE_EXTENSION;
const lines = support.markedLines(sourceArg);
const dc = support.client(backstep);

// VS Code's API, as much of it as extension.js uses.
const registered = {};
const messages = [];
const vscode = {
  debug: {
    activeDebugSession: { type: 'backstep', customRequest: (command, args) => dc.send(command, args) },
    activeStackItem: undefined,
  },
  commands: {
    registerCommand: (id, fn) => {
      registered[id] = fn;
      return { dispose() {} };
    },
  },
  window: {
    showWarningMessage: (m) => messages.push(m),
    showErrorMessage: (m) => messages.push(m),
  },
};
const load = Module._load;
Module._load = function (request, ...rest) {
  return request === 'vscode' ? vscode : load.call(this, request, ...rest);
};

async function command(id, expectFunction, expectLine) {
  const stopped = dc.waitForEvent('stopped');
  await registered[id]();
  const st = (await stopped).body;
  assert.strictEqual(st.reason, 'step', `${id}: ${JSON.stringify(st)}`);
  const top = (await dc.stackTraceRequest({ threadId: st.threadId })).body.stackFrames[0];
  console.log(`   ${id} -> ${top.name}:${top.line}`);
  assert.strictEqual(top.name, expectFunction);
  assert.strictEqual(top.line, expectLine);
}

async function main() {
  console.log('-- the manifest');
  const manifest = JSON.parse(fs.readFileSync(path.join(folder, 'package.json'), 'utf8'));
  assert.ok(fs.existsSync(path.join(folder, manifest.main)), 'main names a file');
  const declared = manifest.contributes.commands.map((c) => c.command);
  assert.deepStrictEqual(declared.sort(), ['backstep.reverseStepIn', 'backstep.reverseStepOut']);
  for (const [menu, items] of Object.entries(manifest.contributes.menus)) {
    for (const item of items) assert.ok(declared.includes(item.command), `${menu} names ${item.command}`);
  }
  assert.ok(manifest.contributes.menus['debug/toolbar'].length === 2, 'both on the debug toolbar');
  for (const id of declared) assert.ok(manifest.activationEvents.includes('onCommand:' + id), 'activates on ' + id);

  console.log('-- activate');
  const context = { subscriptions: [] };
  require(path.join(folder, manifest.main)).activate(context);
  assert.deepStrictEqual(Object.keys(registered).sort(), declared);
  assert.strictEqual(context.subscriptions.length, 2);

  console.log('-- the commands, on a real session');
  await dc.start();
  await dc.initializeRequest({ adapterID: 'backstep' });
  await Promise.all([dc.launchRequest({ trace }), dc.waitForEvent('initialized')]);
  await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'square' }] });
  const [, hit] = await Promise.all([dc.configurationDoneRequest(), dc.waitForEvent('stopped')]);
  await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
  vscode.debug.activeStackItem = { threadId: hit.body.threadId };
  await command('backstep.reverseStepOut', 'worker', lines.fill_write);
  await dc.nextRequest({ threadId: hit.body.threadId });
  await dc.waitForEvent('stopped');
  await command('backstep.reverseStepIn', 'square', lines.square_end);
  assert.deepStrictEqual(messages, []);

  console.log('-- without a backstep session: a warning, no request');
  vscode.debug.activeDebugSession = undefined;
  await registered['backstep.reverseStepOut']();
  assert.deepStrictEqual(messages, ['backstep: no backstep debug session is active']);

  await dc.disconnectRequest({});
  console.log('PASS dap.vscode_extension');
}

support.runTest(dc, main);
