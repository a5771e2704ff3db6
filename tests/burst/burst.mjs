// tests/burst/burst.mjs - the burst that once went unanswered (issue 24): from one event
// loop, 33 connections opened at once, each writing one request - 16 incomplete heads that
// must simply wait, then valid and malformed requests that must each be answered - against
// a freshly started server, ROUNDS times in a row (each round a new server process).
//
//   node tests/burst/burst.mjs path/to/tachy-hello [ROUNDS]
//
// Prints one line per failure and `N passed, M failed` (a round passes when every complete
// request got a response and no incomplete one did). Exits 1 on any failure.
import net from 'node:net';
import { spawn } from 'node:child_process';

const [hello, roundsArg] = process.argv.slice(2);
const ROUNDS = Number(roundsArg || 20);
const ANSWER_MS = 500;  // a complete request's bound (each alone takes < 1 ms)
const QUIET_MS = 300;   // how long an incomplete head must stay unanswered

const incomplete = Array.from({ length: 16 }, (_, i) => `GET /wait${i} HTTP/1.1\r\nHost: x\r\n`);
const complete = [
  'POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n', // 100 first
  'GET / HTTP/1.1\r\n\r\n',                                        // no Host: 400
  'GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',                  // two Hosts: 400
  'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',      // 400
  'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n',
  'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\nabc',
  'GET / HTTP/1.1\r\nHost: x\r\nX-Empty:\r\n\r\n',                 // 200
  'GET / HTTP/1.1\r\nHost: x\r\nX-Ctl: a\x01b\r\n\r\n',            // 400
  'GET / HTTP/9.9\r\nHost: x\r\n\r\n',                             // 505
  '\x01\x02 GET / HTTP/1.1\r\nHost: x\r\n\r\n',                    // garbage first: 400
  'GET / HTTP/1.1\r\nHost: x\rX: y\r\n\r\n',                       // bare CR: 400
  'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello',  // 200, echoed
  'POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
  'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\ntransfer-ENCODING: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
  'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
  'HEAD / HTTP/1.1\r\nHost: x\r\n\r\n',
  'GET / HTTP/1.0\r\n\r\n',
];

function startServer() {
  return new Promise((resolve, reject) => {
    const p = spawn(hello, ['-p', '0', '-b', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', d => {
      out += d;
      const m = out.match(/:(\d+)\//);
      if (m) resolve({ p, port: Number(m[1]) });
    });
    p.on('exit', c => reject(new Error(`server exited (${c})`)));
    setTimeout(() => reject(new Error('server did not start')), 5000);
  });
}

function one(port, req, mustAnswer) {
  return new Promise(resolve => {
    const s = net.connect(port, '127.0.0.1');
    const t0 = Date.now();
    let got = '', answeredAt = 0;
    const finish = () => { clearTimeout(timer); s.destroy(); resolve({ req, mustAnswer, got, ms: answeredAt ? answeredAt - t0 : -1 }); };
    s.on('connect', () => s.write(req, 'latin1'));
    s.on('data', d => {
      got += d.toString('latin1');
      if (!answeredAt) answeredAt = Date.now();
      if (mustAnswer) finish();
    });
    s.on('error', () => {});
    // the connection stays open (a rejected one is closed by the server after its answer)
    const timer = setTimeout(finish, mustAnswer ? ANSWER_MS : QUIET_MS);
  });
}

let passed = 0, failed = 0;
for (let round = 1; round <= ROUNDS; round++) {
  const { p, port } = await startServer();
  const all = await Promise.all([
    ...incomplete.map(r => one(port, r, false)),
    ...complete.map(r => one(port, r, true)),
  ]);
  p.kill('SIGKILL');
  const bad = all.filter(r => (r.mustAnswer && !r.got.startsWith('HTTP/1.')) || (!r.mustAnswer && r.got));
  if (bad.length) {
    failed++;
    for (const r of bad)
      console.log(`round ${round}: ${r.mustAnswer ? 'unanswered' : 'answered an incomplete head'}: ${JSON.stringify(r.req.slice(0, 50))}`);
  } else {
    passed++;
  }
  const slowest = Math.max(...all.filter(r => r.mustAnswer).map(r => r.ms));
  console.log(`round ${round}: ${all.filter(r => r.mustAnswer && r.got).length}/${complete.length} answered (slowest ${slowest} ms), ${incomplete.length} incomplete left waiting`);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
