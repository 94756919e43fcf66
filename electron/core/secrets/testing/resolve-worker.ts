/**
 * Run in a child process by the tests: opens the secret store of the data folder given as
 * argv[2] with a fresh KeyFileCipher and prints one JSON line with the list, a resolved
 * value (argv[3] for host argv[4]) or the error.
 */
import { KeyFileCipher } from '../cipher';
import { SecretStore } from '../secret-store';

const [dataDir, name, host] = process.argv.slice(2) as [string, string, string];
const store = new SecretStore({ dataDir, cipher: new KeyFileCipher(dataDir) });
try {
  await store.open();
  const value = store.resolve(name, host);
  process.stdout.write(JSON.stringify({ ok: true, list: store.list(), value }) + '\n');
} catch (e) {
  process.stdout.write(JSON.stringify({ ok: false, error: (e as Error).message }) + '\n');
}
