// A crash, through Microsoft's DAP test client: the signal stops as an
// exception at the faulting line, the IDE steps back from it through the
// loop that led there and out to the caller, and the program's death by
// the signal ends the session with its exit status.
//
// Usage: node session_crash_test.js BACKSTEP TRACE SOURCE (run_dap_test.py).
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
const dc = new DebugClient(backstep, 'dap', 'backstep', { env: process.env }, true);
dc.defaultTimeout = 60000;

async function run(request, args, expectReason) {
  const [, stopped] = await Promise.all([dc.send(request, args), dc.waitForEvent('stopped')]);
  assert.strictEqual(stopped.body.reason, expectReason, `${request}: ${JSON.stringify(stopped.body)}`);
  const frames = (await dc.stackTraceRequest({ threadId: stopped.body.threadId })).body.stackFrames;
  console.log(`   ${request} -> ${stopped.body.reason} (${stopped.body.description}) at ${frames[0].name}:${frames[0].line}`);
  return { stopped, top: frames[0] };
}

async function value(expression, frameId) {
  return (await dc.evaluateRequest({ expression, frameId, context: 'watch' })).body.result;
}

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

main().then(() => process.exit(0), (e) => {
  console.error('FAIL: ' + (e && e.stack ? e.stack : e));
  dc.stop().catch(() => {}).finally(() => process.exit(1));
});
