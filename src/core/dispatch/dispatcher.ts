import type { z } from 'zod';
import {
  CALLS,
  CALL_NAMES,
  ServelabError,
  fieldIssues,
  describeIssues,
  parseOrBadInput,
  type CallName,
  type CallOutput,
  type Envelope,
} from '../../shared/contract';

/** Handlers receive the parsed (defaults applied) input of their call. */
export type CallHandlers = {
  [N in CallName]: (input: z.output<(typeof CALLS)[N]['input']>) => Promise<CallOutput<N>>;
};

export type Dispatch = (name: string, rawInput: unknown) => Promise<Envelope<unknown>>;

export function isCallName(name: unknown): name is CallName {
  return typeof name === 'string' && (CALL_NAMES as readonly string[]).includes(name);
}

/**
 * The one entry point every transport uses: rejects unknown names, validates the input against the contract,
 * runs the handler, validates its output, and turns every failure into the typed error envelope.
 */
export function createDispatcher(handlers: CallHandlers, log: (line: string) => void = () => {}): Dispatch {
  return async (name, rawInput) => {
    if (!isCallName(name)) {
      return { ok: false, error: { code: 'UNKNOWN_CALL', message: `There is no call named "${String(name)}".` } };
    }
    const spec = CALLS[name];
    try {
      // A BAD_INPUT here returns before the handler runs.
      const input = parseOrBadInput(spec.input, rawInput ?? {}, `input for ${name}`);
      const handler = handlers[name] as (input: unknown) => Promise<unknown>;
      const output = await handler(input);
      const checked = spec.output.safeParse(output);
      if (!checked.success) {
        log(`internal: ${name} returned output that breaks the contract: ${describeIssues(fieldIssues(checked.error))}`);
        return { ok: false, error: { code: 'INTERNAL', message: `${name} produced an invalid result; see the log.` } };
      }
      return { ok: true, data: checked.data };
    } catch (error) {
      if (error instanceof ServelabError) return { ok: false, error: error.toInfo() };
      const message = error instanceof Error ? error.message : String(error);
      log(`internal: ${name} failed: ${error instanceof Error && error.stack ? error.stack : message}`);
      return { ok: false, error: { code: 'INTERNAL', message: `${name} failed unexpectedly: ${message}` } };
    }
  };
}
