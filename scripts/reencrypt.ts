/**
 * Key rotation, last step: re-encrypt every stored installation and set of service credentials
 * under the current ENCRYPTION_KEY. Run it with the same environment as the bot (STORE_URL,
 * ENCRYPTION_KEY, and the old key in ENCRYPTION_KEYS_PREVIOUS):
 *
 *   npx tsx scripts/reencrypt.ts
 *
 * from a checkout (`npm ci`) that reaches the same store; the Docker image does not contain it.
 *
 * Afterwards ENCRYPTION_KEYS_PREVIOUS can be emptied. Prints counts only, never a value.
 */
import { loadConfig } from '../src/config.js';
import { createStore } from '../src/store/index.js';

const config = loadConfig(process.env);
const store = await createStore({
  url: config.storeUrl,
  encryptionKey: config.encryptionKey,
  previousEncryptionKeys: config.previousEncryptionKeys,
});
try {
  const n = await store.reencryptAll();
  process.stdout.write(
    `Re-encrypted ${n.installations} installation(s) and ${n.credentials} credential set(s) with the current key.\n`,
  );
} finally {
  await store.close();
}
