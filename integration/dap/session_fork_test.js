// A process tree, through Microsoft's DAP test client: launch's "pid" gives
// the debugger the forked child (as `backstep replay -p` does); a function
// breakpoint stops in the child's own code, values are the child's, and it
// goes back there; the parent's lines are not this session's.
//
// Usage: node session_fork_test.js BACKSTEP TRACE SOURCE, with DAP_CHILD_PID
// the child's recorded pid (run_dap_test.py --child-pid-env DAP_CHILD_PID).
'use strict';

const assert = require('assert');
const path = require('path');
const support = require('./dap_test_support');

const [backstep, trace, sourceArg] = process.argv.slice(2);
const lines = support.markedLines(sourceArg);
const child = Number(process.env.DAP_CHILD_PID);
const dc = support.client(backstep);
const run = (request, args, expectReason) => support.runToStop(dc, request, args, expectReason);
const value = (expression, frameId) => support.watch(dc, expression, frameId);

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

support.runTest(dc, main);
