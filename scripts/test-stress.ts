/**
 * `npm run test:stress` — hunts flaky tests: runs the test suite and the fault suite several times
 * while CPU-burning processes compete for the cores (a busy CI machine), then prints every test
 * that failed at least once, with how often and the first failure message.
 *
 *   npm run test:stress                          # 3 rounds, 2 burners, both suites
 *   npm run test:stress -- --runs 5 --burners 3
 *   npm run test:stress -- --suite unit          # unit | faults | both
 *   npm run test:stress -- --suite unit test/slack/features/jobs   # only these files (vitest filters)
 *
 * Exit status 0 when no test failed in any round, 1 otherwise. A test that fails here even once is
 * a bug to fix (wait for conditions, not time; isolate workspaces/channels; never count messages
 * another test can add), not a reason to re-run. Each fault-suite round prints its FAULTS_SEED:
 * `FAULTS_SEED=<seed> npm run test:faults` replays it. The burners are child processes of this
 * script and are stopped (by their pid) when it ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runs: { type: 'string', default: '3' },
    burners: { type: 'string', default: '2' },
    suite: { type: 'string', default: 'both' },
  },
});
const runs = Number(values.runs);
const burnerCount = Number(values.burners);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(burnerCount) || burnerCount < 0) {
  console.error(
    'usage: npm run test:stress -- [--runs N>=1] [--burners K>=0] [--suite unit|faults|both] [files]',
  );
  process.exit(2);
}
if (!['unit', 'faults', 'both'].includes(values.suite)) {
  console.error(`--suite must be unit, faults or both (got ${values.suite})`);
  process.exit(2);
}
const suites = values.suite === 'both' ? ['unit', 'faults'] : [values.suite];

interface JsonReport {
  testResults: Array<{
    name: string;
    status: string;
    message?: string;
    assertionResults: Array<{ fullName: string; status: string; failureMessages?: string[] }>;
  }>;
  numTotalTests: number;
  numFailedTests: number;
}

interface Failure {
  count: number;
  message: string;
  seeds: string[];
}

const failures = new Map<string, Failure>();
const dir = mkdtempSync(join(tmpdir(), 'drm-stress-'));
const burners: ChildProcess[] = [];

function startBurners(): void {
  for (let i = 0; i < burnerCount; i++) {
    // A busy loop: one core's worth of competing work per burner.
    burners.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
}
function stopBurners(): void {
  for (const b of burners.splice(0)) if (b.pid !== undefined && b.exitCode === null) b.kill('SIGKILL');
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    stopBurners();
    process.exit(130);
  });
}
process.on('exit', stopBurners);

/** The first lines of a failure (a property test's seed and counterexample follow its first line). */
function short(msg: string): string {
  const lines = msg
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.slice(0, 3).join(' | ').slice(0, 400);
}

function record(key: string, message: string, seed: string): void {
  const f = failures.get(key) ?? { count: 0, message: short(message), seeds: [] };
  f.count++;
  if (seed) f.seeds.push(seed);
  failures.set(key, f);
}

async function runSuite(suite: string, round: number): Promise<void> {
  const out = join(dir, `${suite}-${round}.json`);
  const seed = suite === 'faults' ? String(1 + Math.floor(Math.random() * (2 ** 31 - 2))) : '';
  const args = ['vitest', 'run', ...(suite === 'faults' ? ['-c', 'vitest.faults.config.ts'] : [])];
  args.push('--reporter=dot', '--reporter=json', `--outputFile.json=${out}`, ...positionals);
  const started = Date.now();
  const env = { ...process.env, ...(seed ? { FAULTS_SEED: seed } : {}) };
  const code = await new Promise<number>((resolve) => {
    const child = spawn('npx', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    child.on('exit', (c) => resolve(c ?? 1));
  });
  let report: JsonReport | undefined;
  try {
    report = JSON.parse(readFileSync(out, 'utf8')) as JsonReport;
  } catch {
    record(`${suite}: the run itself`, `vitest exited ${code} without a report`, seed);
  }
  let failed = 0;
  for (const file of report?.testResults ?? []) {
    const rel = file.name.replace(`${process.cwd()}/`, '');
    const failedTests = file.assertionResults.filter((a) => a.status === 'failed');
    for (const t of failedTests) {
      failed++;
      record(`${rel} > ${t.fullName}`, t.failureMessages?.[0] ?? '(no message)', seed);
    }
    if (file.status === 'failed' && failedTests.length === 0) {
      failed++;
      record(`${rel} (file: hook or import failed)`, file.message ?? '(no message)', seed);
    }
  }
  const secs = Math.round((Date.now() - started) / 1000);
  console.log(
    `round ${round}/${runs} ${suite}: ${report?.numTotalTests ?? '?'} tests, ${failed} failed, ${secs} s` +
      (seed ? ` (FAULTS_SEED=${seed})` : ''),
  );
}

console.log(
  `test:stress: ${runs} round(s) of ${suites.join(' + ')}, ${burnerCount} CPU burner(s) beside them`,
);
startBurners();
try {
  for (let round = 1; round <= runs; round++) {
    for (const suite of suites) await runSuite(suite, round);
  }
} finally {
  stopBurners();
  rmSync(dir, { recursive: true, force: true });
}

if (failures.size === 0) {
  console.log(`\nno failures in ${runs} round(s)`);
  process.exit(0);
}
console.log(`\nfailures per test (out of ${runs} round(s)):`);
for (const [key, f] of [...failures].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`  ${f.count}x  ${key}`);
  console.log(`       ${f.message}`);
  if (f.seeds.length) console.log(`       FAULTS_SEED: ${f.seeds.join(', ')}`);
}
process.exit(1);
