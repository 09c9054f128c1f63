// One whole IDE session over a recording, through Microsoft's DAP test
// client (@vscode/debugadapter-testsupport), the way VS Code drives an
// adapter: breakpoints, a data breakpoint set at the symptom and run
// backwards to the write, steps back over lines, reverse step-in and
// step-out, expressions and a function call in the past, threads and
// stacks, restart. Every line, value and reason is checked exactly.
//
// Usage: node session_test.js BACKSTEP TRACE SOURCE
// (run_dap_test.py records SOURCE's program and deletes it first). With
// BACKSTEP_DAP_PORT set, the client connects to an adapter already serving
// that port (`backstep dap --port`, VS Code's debugServer) instead of
// starting one on stdin/stdout.
'use strict';

const assert = require('assert');
const path = require('path');
const support = require('./dap_test_support');

const [backstep, trace, sourceArg] = process.argv.slice(2);
const source = path.resolve(sourceArg);
const lines = support.markedLines(source);
const dc = support.client(backstep);
const output = [];
dc.on('output', (e) => output.push(e.body.output));

function step(what) {
  console.log('-- ' + what);
}

const run = (request, args, expectReason) => support.runToStop(dc, request, args, expectReason);
const locals = (frameId) => support.locals(dc, frameId);
async function evaluate(expression, frameId, context = 'watch') {
  return (await dc.evaluateRequest({ expression, frameId, context })).body.result;
}

async function main() {
  const port = process.env.BACKSTEP_DAP_PORT;
  await dc.start(port ? Number(port) : undefined);
  step('initialize: reverse capabilities');
  const init = await dc.initializeRequest({ adapterID: 'backstep', linesStartAt1: true, columnsStartAt1: true });
  assert.strictEqual(init.body.supportsStepBack, true);
  assert.strictEqual(init.body.supportsDataBreakpoints, true);
  assert.strictEqual(init.body.supportsConfigurationDoneRequest, true);

  step('launch, a breakpoint at the report, configurationDone');
  // With BACKSTEP_DAP_ATTACH (host:port of a running `backstep serve`),
  // the session attaches to that server's replay instead of launching one.
  const attachTo = process.env.BACKSTEP_DAP_ATTACH;
  await Promise.all([attachTo ? dc.attachRequest({ target: attachTo }) : dc.launchRequest({ trace }),
                     dc.waitForEvent('initialized')]);
  const bps = await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [{ line: lines.report }] });
  assert.strictEqual(bps.body.breakpoints.length, 1);
  assert.strictEqual(bps.body.breakpoints[0].verified, true);
  assert.strictEqual(bps.body.breakpoints[0].line, lines.report);
  let at = await run('configurationDone', {}, 'breakpoint');
  assert.strictEqual(at.top.name, 'main');
  assert.strictEqual(at.top.line, lines.report);
  assert.deepStrictEqual(at.stopped.body.hitBreakpointIds, [bps.body.breakpoints[0].id]);
  const mainThread = at.stopped.body.threadId;

  step('the symptom: locals and an expression');
  let vars = await locals(at.top.id);
  assert.strictEqual(vars.total.value, '30');
  assert.strictEqual(vars.n.value, '4');
  assert.strictEqual(await evaluate('book.guard', at.top.id), '25');
  const book = await dc.evaluateRequest({ expression: 'book', frameId: at.top.id, context: 'watch' });
  assert.ok(book.body.variablesReference > 0, 'book has children');
  const members = await dc.variablesRequest({ variablesReference: book.body.variablesReference });
  assert.deepStrictEqual(members.body.variables.map((v) => v.name), ['cells', 'guard']);
  const cells = await dc.variablesRequest({ variablesReference: members.body.variables[0].variablesReference });
  assert.deepStrictEqual(cells.body.variables.map((v) => v.value), ['1', '4', '9', '16']);

  step('memory, code and what is loaded');
  const address = (await evaluate('&book', at.top.id)).split(' ')[0];
  const memory = await dc.send('readMemory', { memoryReference: address, count: 20 });
  assert.deepStrictEqual([...Buffer.from(memory.body.data, 'base64')],
                         [1, 0, 0, 0, 4, 0, 0, 0, 9, 0, 0, 0, 16, 0, 0, 0, 25, 0, 0, 0]);
  const pc = at.top.instructionPointerReference;
  const code = await dc.send('disassemble', { memoryReference: pc, instructionOffset: -2, instructionCount: 5 });
  assert.strictEqual(code.body.instructions.length, 5);
  assert.strictEqual(BigInt(code.body.instructions[2].address), BigInt(pc));
  assert.ok(/^main\+/.test(code.body.instructions[2].symbol), JSON.stringify(code.body.instructions[2]));
  const modules = await dc.send('modules', {});
  assert.ok(modules.body.modules.some((m) => /^libc\.so/.test(m.name)), JSON.stringify(modules.body));
  const sources = await dc.send('loadedSources', {});
  assert.ok(sources.body.sources.some((s) => s.path === source), JSON.stringify(sources.body).slice(0, 300));

  step('a data breakpoint on book.guard, then reverseContinue to the write');
  const info = await dc.dataBreakpointInfoRequest({ name: 'book.guard', frameId: at.top.id });
  assert.ok(info.body.dataId, JSON.stringify(info.body));
  assert.ok(info.body.accessTypes.includes('write'));
  const dbps = await dc.setDataBreakpointsRequest({ breakpoints: [{ dataId: info.body.dataId, accessType: 'write' }] });
  assert.strictEqual(dbps.body.breakpoints[0].verified, true);
  at = await run('reverseContinue', { threadId: mainThread }, 'data breakpoint');
  assert.strictEqual(at.stopped.body.text, 'book.guard: 7 -> 25');
  assert.deepStrictEqual(at.stopped.body.hitBreakpointIds, [dbps.body.breakpoints[0].id]);
  assert.strictEqual(at.top.name, 'worker');
  assert.strictEqual(at.top.line, lines.fill_write);
  const workerThread = at.stopped.body.threadId;
  assert.notStrictEqual(workerThread, mainThread, 'the write is the worker thread\'s');
  const threads = await dc.threadsRequest();
  assert.strictEqual(threads.body.threads.length, 2);

  step('the past: locals, an expression and a function call');
  vars = await locals(at.top.id);
  assert.strictEqual(vars.i.value, '4');
  assert.strictEqual(vars.n.value, '4');
  assert.strictEqual(await evaluate('book.cells[3]', at.top.id), '16');
  assert.strictEqual(await evaluate('square(i)', at.top.id, 'repl'), '16');
  const bt = await dc.evaluateRequest({ expression: 'info frame', frameId: at.top.id, context: 'repl' });
  assert.ok(/in worker \(/.test(bt.body.result), bt.body.result);

  step('stepBack over lines');
  at = await run('stepBack', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.line, lines.fill_write);
  assert.strictEqual((await locals(at.top.id)).i.value, '4');
  at = await run('stepBack', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.line, lines.fill_loop);
  at = await run('stepBack', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.line, lines.fill_write);
  assert.strictEqual((await locals(at.top.id)).i.value, '3');

  step('step in, reverse step-out, reverse step-in');
  at = await run('stepIn', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.name, 'square');
  assert.strictEqual(at.top.line, lines.square_body);
  assert.strictEqual((await locals(at.top.id)).x.value, '4');
  at = await run('reverseStepOut', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.name, 'worker');
  assert.strictEqual(at.top.line, lines.fill_write);
  at = await run('next', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.line, lines.fill_loop);
  at = await run('reverseStepIn', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.name, 'square');
  // gdb's reverse-step enters a function at the last line it ran: its end.
  assert.strictEqual(at.top.line, lines.square_end);
  assert.strictEqual((await locals(at.top.id)).product.value, '16');
  at = await run('stepOut', { threadId: workerThread }, 'step');
  assert.strictEqual(at.top.name, 'worker');

  step('a recording cannot change');
  const set = await dc.send('setVariable', { variablesReference: 1, name: 'i', value: '0' }).then(
    () => null, (e) => e.message);
  assert.ok(/cannot be changed/.test(set), String(set));

  step('forwards again: the data breakpoint removed, on to the report and the end');
  await dc.setDataBreakpointsRequest({ breakpoints: [] });
  at = await run('continue', { threadId: workerThread }, 'breakpoint');
  assert.strictEqual(at.top.line, lines.report);
  await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [] });
  at = await run('continue', { threadId: mainThread }, 'end of recording');
  // Attached, the program's output is the server's (run_dap_test.py checks it there).
  if (!attachTo) {
    assert.ok(output.join('').includes('total 30 guard 25\n'), 'the program\'s output: ' + JSON.stringify(output));
  }

  step('a function breakpoint, backwards from the end: the last call of square');
  const fbps = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'square' }] });
  assert.strictEqual(fbps.body.breakpoints[0].verified, true);
  at = await run('reverseContinue', { threadId: mainThread }, 'function breakpoint');
  assert.strictEqual(at.top.name, 'square');
  assert.strictEqual((await locals(at.top.id)).x.value, '5');

  step('restart: from the start of the recording to the first call of square');
  at = await run('restart', {}, 'function breakpoint');
  assert.strictEqual(at.top.name, 'square');
  assert.strictEqual((await locals(at.top.id)).x.value, '1');

  step('a hit count, then a condition');
  await dc.setFunctionBreakpointsRequest({ breakpoints: [] });
  let counted = await dc.setBreakpointsRequest({ source: { path: source },
                                                 breakpoints: [{ line: lines.square_body, hitCondition: '3' }] });
  assert.strictEqual(counted.body.breakpoints[0].verified, true);
  at = await run('continue', { threadId: at.stopped.body.threadId }, 'breakpoint');
  assert.strictEqual((await locals(at.top.id)).x.value, '4');  // hits at 2, 3, 4
  counted = await dc.setBreakpointsRequest({ source: { path: source },
                                             breakpoints: [{ line: lines.square_body, condition: 'x * x > 20' }] });
  at = await run('continue', { threadId: at.stopped.body.threadId }, 'breakpoint');
  assert.strictEqual((await locals(at.top.id)).x.value, '5');
  const refused = await dc.setBreakpointsRequest({ source: { path: source },
                                                   breakpoints: [{ line: lines.square_body, hitCondition: '% 2' }] });
  assert.strictEqual(refused.body.breakpoints[0].verified, false);
  assert.ok(/takes a count N/.test(refused.body.breakpoints[0].message), refused.body.breakpoints[0].message);
  await dc.setBreakpointsRequest({ source: { path: source }, breakpoints: [] });

  step('an instruction breakpoint: the return into the worker');
  const worker = (await dc.stackTraceRequest({ threadId: at.stopped.body.threadId })).body.stackFrames[1];
  const ibps = await dc.send('setInstructionBreakpoints',
                             { breakpoints: [{ instructionReference: worker.instructionPointerReference }] });
  assert.strictEqual(ibps.body.breakpoints[0].verified, true);
  at = await run('continue', { threadId: at.stopped.body.threadId }, 'instruction breakpoint');
  assert.strictEqual(at.top.name, 'worker');
  assert.strictEqual(at.top.line, lines.fill_write);
  await dc.send('setInstructionBreakpoints', { breakpoints: [] });

  step('goto: travel to the next run of the report line, then back to the last call of square');
  let targets = await dc.send('gotoTargets', { source: { path: source }, line: lines.report });
  assert.strictEqual(targets.body.targets[0].line, lines.report);
  at = await run('goto', { threadId: at.stopped.body.threadId, targetId: targets.body.targets[0].id }, 'goto');
  assert.strictEqual(at.stopped.body.description, 'the next time this line runs');
  assert.strictEqual(at.top.name, 'main');
  assert.strictEqual(at.top.line, lines.report);
  targets = await dc.send('gotoTargets', { source: { path: source }, line: lines.square_body });
  at = await run('goto', { threadId: at.stopped.body.threadId, targetId: targets.body.targets[0].id }, 'goto');
  assert.strictEqual(at.stopped.body.description, 'the last time this line ran');
  assert.strictEqual(at.top.name, 'square');
  assert.strictEqual((await locals(at.top.id)).x.value, '5');

  step('the start of the recording');
  at = await run('reverseContinue', { threadId: at.stopped.body.threadId }, 'start of recording');

  await dc.disconnectRequest({});
  console.log('PASS dap.session');
}

support.runTest(dc, main);
