// What the SSH integration suites do with a connection they opened: run a command that must succeed, and expect a
// connection attempt to fail with a coded error.
import { expect } from 'vitest';
import type { Client } from 'ssh2';
import { execCollect } from '../../src/core/ssh/exec';
import { ServelabError } from '../../src/shared/contract';

/** Runs `command` over `client`, expects exit 0 and returns its stdout, trimmed. */
export async function run(client: Client, command: string): Promise<string> {
  const result = await execCollect(client, command, { timeoutSeconds: 10 });
  expect(result.code).toBe(0);
  return result.stdout.trim();
}

/** The ServelabError `promise` rejects with; a connection it opened after all is ended and the test fails. */
export async function caught(promise: Promise<unknown>): Promise<ServelabError> {
  try {
    const value = await promise;
    (value as Client | undefined)?.end();
  } catch (error) {
    expect(error).toBeInstanceOf(ServelabError);
    return error as ServelabError;
  }
  throw new Error('expected a failure');
}
