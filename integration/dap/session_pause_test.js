// A long run stopped by the user, through Microsoft's DAP test client: the
// replay's progress notes arrive as DAP progress events (the client says it
// shows them), `pause` stops a run in the middle of a loop, and `cancel` of
// the progress does the same; the stop is a "pause" in the loop, and the
// progress ends with it.
//
// Usage: node session_pause_test.js BACKSTEP TRACE SOURCE (run_dap_test.py,
// with BACKSTEP_PROGRESS_MS=0: a note at every look for an interrupt).
'use strict';

const assert = require('assert');
const support = require('./dap_test_support');

const [backstep, trace] = process.argv.slice(2);
const dc = support.client(backstep);
const output = [];
dc.on('output', (e) => output.push(e.body.output));

// Runs forward, waits for the run's progress to start, stops it with
// `stop(progressId)`; checks the stop and that the progress ended.
async function interrupted(what, stop) {
  const progress = dc.waitForEvent('progressStart');
  await dc.continueRequest({ threadId: 1 });
  const start = await progress;
  assert.strictEqual(start.body.title, 'Replaying');
  assert.ok(/^still replaying forwards/.test(start.body.message), start.body.message);
  const ended = dc.waitForEvent('progressEnd');
  const stopped = dc.waitForEvent('stopped');
  await stop(start.body.progressId);
  const st = (await stopped).body;
  assert.strictEqual(st.reason, 'pause', `${what}: ${JSON.stringify(st)}`);
  assert.strictEqual((await ended).body.progressId, start.body.progressId);
  const frames = (await dc.stackTraceRequest({ threadId: st.threadId })).body.stackFrames;
  assert.strictEqual(frames[0].name, 'main');
  const counter = Number((await dc.evaluateRequest({ expression: 'counter', frameId: frames[0].id,
                                                     context: 'watch' })).body.result);
  console.log(`   ${what}: stopped in main, counter ${counter}`);
  assert.ok(counter > 0 && counter < 600000000, `${what}: counter ${counter} is inside the loop`);
  return counter;
}

async function main() {
  await dc.start();
  const caps = await dc.initializeRequest({ adapterID: 'backstep', supportsProgressReporting: true });
  assert.strictEqual(caps.body.supportsCancelRequest, true);
  await Promise.all([dc.launchRequest({ trace, stopOnEntry: true }), dc.waitForEvent('initialized')]);
  const [, entry] = await Promise.all([dc.configurationDoneRequest(), dc.waitForEvent('stopped')]);
  assert.strictEqual(entry.body.reason, 'entry');
  assert.strictEqual(entry.body.description, 'start of recording');

  console.log('-- to the loop, then pause in the middle of it');
  await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'before_loop' }] });
  const [, at] = await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
  assert.strictEqual(at.body.reason, 'function breakpoint');
  await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
  const first = await interrupted('pause', () => dc.pauseRequest({ threadId: 1 }));
  console.log('-- cancel the progress of the next run');
  const second = await interrupted('cancel', (id) => dc.send('cancel', { progressId: id }));
  assert.ok(second >= first, `the second stop (${second}) is not before the first (${first})`);

  console.log('-- restart with stopOnEntry: back at the start of the recording');
  const [, again] = await Promise.all([dc.send('restart', {}), dc.waitForEvent('stopped')]);
  assert.strictEqual(again.body.reason, 'entry');
  assert.strictEqual(again.body.description, 'start of recording');
  const top = (await dc.stackTraceRequest({ threadId: again.body.threadId })).body.stackFrames[0];
  assert.strictEqual(top.name, '_start');

  console.log('-- on to the end');
  await dc.setExceptionBreakpointsRequest({ filters: [] });
  const [, end] = await Promise.all([dc.continueRequest({ threadId: 1 }), dc.waitForEvent('stopped')]);
  assert.strictEqual(end.body.reason, 'end of recording');
  assert.ok(/mix=[0-9a-f]+ counter=600000000\n/.test(output.join('')), JSON.stringify(output));
  await dc.disconnectRequest({});
  console.log('PASS dap.pause');
}

support.runTest(dc, main);
