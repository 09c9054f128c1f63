// A crash, through Microsoft's DAP test client: the signal stops as an
// exception at the faulting line, the IDE steps back from it through the
// loop that led there and out to the caller, and the program's death by
// the signal ends the session with its exit status.
//
// Usage: node session_crash_test.js BACKSTEP TRACE SOURCE (run_dap_test.py).
'use strict';

const assert = require('assert');
const support = require('./dap_test_support');

const [backstep, trace, sourceArg] = process.argv.slice(2);
const lines = support.markedLines(sourceArg);
const dc = support.client(backstep);
const run = (request, args, expectReason) => support.runToStop(dc, request, args, expectReason);
const value = (expression, frameId) => support.watch(dc, expression, frameId);

async function main() {
  await dc.start();
  await dc.initializeRequest({ adapterID: 'backstep' });
  await Promise.all([dc.launchRequest({ trace }), dc.waitForEvent('initialized')]);
  let at = await run('configurationDone', {}, 'exception');
  assert.strictEqual(at.stopped.body.description, 'signal SIGSEGV (Segmentation fault)');
  assert.strictEqual(at.top.name, 'sum');
  assert.strictEqual(at.top.line, lines.crash);
  assert.strictEqual(await value('n', at.top.id), '0x10');
  assert.strictEqual(await value('total', at.top.id), '6');
  const info = await dc.send('exceptionInfo', { threadId: 1 });
  assert.strictEqual(info.body.exceptionId, 'SIGSEGV');
  assert.strictEqual(info.body.description, 'signal SIGSEGV (Segmentation fault)');

  console.log('-- back from the crash: the loop that led there');
  at = await run('stepBack', { threadId: 1 }, 'step');
  assert.strictEqual(at.top.line, lines.crash);
  at = await run('stepBack', { threadId: 1 }, 'step');
  assert.strictEqual(at.top.line, lines.walk);
  at = await run('stepBack', { threadId: 1 }, 'step');
  assert.strictEqual(at.top.line, lines.advance);
  assert.strictEqual(await value('n->value', at.top.id), '3');
  at = await run('reverseStepOut', { threadId: 1 }, 'step');
  assert.strictEqual(at.top.name, 'main');
  assert.strictEqual(at.top.line, lines.call);

  console.log('-- forwards: the crash again, then the death by it');
  at = await run('continue', { threadId: 1 }, 'exception');
  assert.strictEqual(at.top.line, lines.crash);
  const exited = dc.waitForEvent('exited');
  const terminated = dc.waitForEvent('terminated');
  await dc.continueRequest({ threadId: 1 });
  assert.strictEqual((await exited).body.exitCode, 139);
  await terminated;
  await dc.disconnectRequest({});
  console.log('PASS dap.crash');
}

support.runTest(dc, main);
