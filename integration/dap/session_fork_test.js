// A process tree, through Microsoft's DAP test client: launch's "pid" gives
// the debugger the forked child (as `backstep replay -p` does); a function
// breakpoint stops in the child's own code, values are the child's, and it
// goes back there; the parent's lines are not this session's.
//
// Usage: node session_fork_test.js BACKSTEP TRACE SOURCE, with DAP_CHILD_PID
// the child's recorded pid (run_dap_test.py --child-pid-env DAP_CHILD_PID).
'use strict';

const assert = require('assert');
const fs = require('fs');
const path = require('path');
const { DebugClient } = require('@vscode/debugadapter-testsupport');

const [backstep, trace, sourceArg] = process.argv.slice(2);
const lines = {};
fs.readFileSync(path.resolve(sourceArg), 'utf8').split('\n').forEach((text, i) => {
  const m = /\/\/ LINE (\w+)/.exec(text);
  if (m) lines[m[1]] = i + 1;
});
const child = Number(process.env.DAP_CHILD_PID);
const dc = new DebugClient(backstep, 'dap', 'backstep', { env: process.env }, true);
dc.defaultTimeout = 60000;

async function run(request, args, expectReason) {
  const [, stopped] = await Promise.all([dc.send(request, args), dc.waitForEvent('stopped')]);
  assert.strictEqual(stopped.body.reason, expectReason, `${request}: ${JSON.stringify(stopped.body)}`);
  const frames = (await dc.stackTraceRequest({ threadId: stopped.body.threadId })).body.stackFrames;
  console.log(`   ${request} -> ${stopped.body.reason} at ${frames[0].name}:${frames[0].line}`);
  return { stopped, top: frames[0], frames };
}

async function value(expression, frameId) {
  return (await dc.evaluateRequest({ expression, frameId, context: 'watch' })).body.result;
}

async function main() {
  assert.ok(child > 0, 'DAP_CHILD_PID names the child');
  await dc.start();
  await dc.initializeRequest({ adapterID: 'backstep' });
  await Promise.all([dc.launchRequest({ trace, pid: child }), dc.waitForEvent('initialized')]);
  await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'child_work' }] });
  let at = await run('configurationDone', {}, 'function breakpoint');
  assert.strictEqual(at.top.name, 'child_work');
  assert.strictEqual(await value('n', at.top.id), '7');
  assert.strictEqual(at.frames[1].name, 'main');
  assert.strictEqual(at.frames[1].line, lines.child_call);
  assert.strictEqual(await value('(int) getpid()', at.top.id), String(child));

  console.log('-- the child\'s loop, then back into it from its return');
  await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
  await dc.setBreakpointsRequest({ source: { path: path.resolve(sourceArg) },
                                   breakpoints: [{ line: lines.child_return }] });
  at = await run('continue', { threadId: at.stopped.body.threadId }, 'breakpoint');
  assert.strictEqual(at.top.line, lines.child_return);
  assert.strictEqual(await value('acc', at.top.id), String([...Array(7)].reduce((a) => a * 3 % 101, 1)));
  at = await run('stepBack', { threadId: at.stopped.body.threadId }, 'step');
  assert.strictEqual(at.top.line, lines.child_loop);
  at = await run('stepBack', { threadId: at.stopped.body.threadId }, 'step');
  assert.strictEqual(at.top.line, lines.child_body);
  assert.strictEqual(await value('i', at.top.id), '7');

  await dc.disconnectRequest({});
  console.log('PASS dap.fork');
}

main().then(() => process.exit(0), (e) => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e));
  dc.stop().catch(() => {}).finally(() => process.exit(1));
});
