/**
 * When to SIGKILL a bot process in the kill -9 scenarios: half the time the moment the fake Slack
 * records one of the bot's posts or updates (posted, not yet recorded by the bot: the window
 * exactly-once delivery must survive), otherwise after a random delay. Seeded like the suite.
 */
import type { FakeSlack } from '../../../dev/fakeslack/index.js';
import { randInt } from './seed.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Wait for the next kill moment; true when it was a Slack call (not the delay). */
export async function killMoment(fake: FakeSlack, rand: () => number, maxDelayMs: number): Promise<boolean> {
  if (rand() < 0.5) {
    const seq = fake.lastSeq();
    const method = ['chat.postMessage', 'chat.update', 'chat.postMessage'][randInt(rand, 0, 2)]!;
    return fake
      .waitFor((c) => c.seq > seq && c.method === method, 2500)
      .then(() => true)
      .catch(() => false);
  }
  await sleep(randInt(rand, 50, maxDelayMs));
  return false;
}
