// A C++ session through Microsoft's DAP test client: libstdc++'s pretty
// printers (a vector's elements, a string) as variables, a member function
// called in the past, a data breakpoint run backwards to the write, a
// breakpoint in a worker thread reached backwards, and steps back there.
//
// Usage: node session_cpp_test.js BACKSTEP TRACE SOURCE (run_dap_test.py).
'use strict';

const assert = require('assert');
const path = require('path');
const support = require('./dap_test_support');

const [backstep, trace, sourceArg] = process.argv.slice(2);
const source = path.resolve(sourceArg);
const lines = support.markedLines(source);
const dc = support.client(backstep);
const run = (request, args, expectReason) => support.runToStop(dc, request, args, expectReason);

async function children(reference) {
  const r = await dc.variablesRequest({ variablesReference: reference });
  const out = {};
  for (const v of r.body.variables) out[v.name] = v;
  return out;
}

async function watch(expression, frameId) {
  return (await dc.evaluateRequest({ expression, frameId, context: 'watch' })).body;
}

async function main() {
  await dc.start();
  await dc.initializeRequest({ adapterID: 'backstep', linesStartAt1: true });
  await Promise.all([dc.launchRequest({ trace }), dc.waitForEvent('initialized')]);
  await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [{ line: lines.report }] });
  let at = await run('configurationDone', {}, 'breakpoint');
  assert.strictEqual(at.top.line, lines.report);

  console.log('-- pretty printers: the vector and the string');
  const inv = await watch('inv', at.top.id);
  const members = await children(inv.variablesReference);
  assert.deepStrictEqual(Object.keys(members), ['counts', 'label', 'checks']);
  assert.strictEqual(members.label.value, '"stocked"');
  assert.strictEqual(members.checks.value, '60');
  assert.ok(/^std::vector of length 4/.test(members.counts.value), members.counts.value);
  const cells = await children(members.counts.variablesReference);
  assert.deepStrictEqual(Object.values(cells).map((v) => v.value), ['0', '10', '20', '30']);
  assert.deepStrictEqual(Object.keys(cells), ['[0]', '[1]', '[2]', '[3]']);

  console.log('-- a member function and an xmethod, called at this position');
  assert.strictEqual((await watch('inv.total()', at.top.id)).result, '60');
  assert.strictEqual((await watch('inv.counts.size()', at.top.id)).result, '4');

  console.log('-- a data breakpoint on inv.checks, backwards to its write');
  const info = await dc.dataBreakpointInfoRequest({ name: 'checks', variablesReference: inv.variablesReference });
  assert.ok(info.body.dataId, JSON.stringify(info.body));
  await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
  at = await run('reverseContinue', { threadId: at.stopped.body.threadId }, 'data breakpoint');
  assert.strictEqual(at.top.name, 'main');
  assert.strictEqual(at.top.line, lines.checks);
  assert.strictEqual(at.stopped.body.text, 'inv.checks: 0 -> 60');
  await dc.setDataBreakpointsRequest({ breakpoints: [] });

  console.log('-- a breakpoint in the worker, reached backwards: the last push');
  await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [{ line: lines.push }] });
  at = await run('reverseContinue', { threadId: at.stopped.body.threadId }, 'breakpoint');
  assert.strictEqual(at.top.name, 'stock');
  assert.strictEqual(at.top.line, lines.push);
  const worker = at.stopped.body.threadId;
  const threads = await dc.threadsRequest();
  assert.strictEqual(threads.body.threads.length, 2);
  let scope = (await dc.scopesRequest({ frameId: at.top.id })).body.scopes[0];
  assert.strictEqual((await children(scope.variablesReference)).i.value, '3');
  assert.strictEqual((await watch('inv.counts.size()', at.top.id)).result, '3');
  assert.strictEqual((await watch('inv.label', at.top.id)).result, '"empty"');

  console.log('-- steps back in the worker');
  await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [] });
  at = await run('stepBack', { threadId: worker }, 'step');
  assert.strictEqual(at.top.line, lines.stock_loop);
  at = await run('stepBack', { threadId: worker }, 'step');
  assert.strictEqual(at.top.line, lines.push);
  scope = (await dc.scopesRequest({ frameId: at.top.id })).body.scopes[0];
  assert.strictEqual((await children(scope.variablesReference)).i.value, '2');
  at = await run('reverseStepOut', { threadId: worker }, 'step');
  assert.ok(at.top.name !== 'stock', 'out of stock: ' + at.top.name);

  await dc.disconnectRequest({});
  console.log('PASS dap.session_cpp');
}

support.runTest(dc, main);
