// What the DAP tests share: the lines a program marks (`// LINE name`), the
// client that starts `backstep dap`, and a request that runs the program
// and waits for its stop.
'use strict';

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

// { name: line number } of the source's `// LINE name` comments.
function markedLines(source) {
  const lines = {};
  fs.readFileSync(path.resolve(source), 'utf8').split('\n').forEach((text, i) => {
    const m = /\/\/ LINE (\w+)/.exec(text);
    if (m) lines[m[1]] = i + 1;
  });
  return lines;
}

// Microsoft's test client, with `backstep dap` as its adapter (started on
// stdin/stdout by start(), or reached on a port).
function client(backstep) {
  const dc = new DebugClient(backstep, 'dap', 'backstep', { env: process.env }, true);
  dc.defaultTimeout = 60000;
  return dc;
}

// Sends `request` and waits for the stop it causes; checks its reason and
// returns the stopped event, the stopping thread's frames and the top one.
async function runToStop(dc, request, args, expectReason) {
  const [, stopped] = await Promise.all([dc.send(request, args), dc.waitForEvent('stopped')]);
  assert.strictEqual(stopped.body.reason, expectReason, `${request}: ${JSON.stringify(stopped.body)}`);
  const frames = (await dc.stackTraceRequest({ threadId: stopped.body.threadId })).body.stackFrames;
  const top = frames[0];
  console.log(`   ${request} -> ${stopped.body.reason} (${stopped.body.description || ''}) ` +
              `at ${top.name}:${top.line} thread ${stopped.body.threadId}`);
  return { stopped, top, frames };
}

// A watch expression's value in a frame.
async function watch(dc, expression, frameId) {
  return (await dc.evaluateRequest({ expression, frameId, context: 'watch' })).body.result;
}

// The first scope's variables of a frame, by name.
async function locals(dc, frameId) {
  const scopes = await dc.scopesRequest({ frameId });
  const vars = await dc.variablesRequest({ variablesReference: scopes.body.scopes[0].variablesReference });
  const out = {};
  for (const v of vars.body.variables) out[v.name] = v;
  return out;
}

// Runs `main`; exit status 0 when it resolves, 1 (after stopping the
// client) when it throws.
function runTest(dc, main) {
  main().then(() => process.exit(0), (e) => {
    console.error('FAIL: ' + (e && e.stack ? e.stack : e));
    dc.stop().catch(() => {}).finally(() => process.exit(1));
  });
}

module.exports = { markedLines, client, runToStop, watch, locals, runTest };
