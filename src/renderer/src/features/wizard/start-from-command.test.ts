import { describe, expect, it } from 'vitest';
import { configFileOf } from '../../../../shared/engines/config-files';
import { parseServeCommand, type ParsedServeCommand } from '../../../../shared/engines/command-parse';
import { currentMessages } from '../../i18n';
import { assemble } from '../../study-draft/assemble';
import { initialDraft, type WizardDraft } from '../../study-draft/draft';
import { draftFromCommand } from './start-from-command';

const isDemo = (hostId: string) => hostId === 'demo-lab';
const file = (name: string, content: string) => configFileOf(name, content);

function draft(): WizardDraft {
  return { ...initialDraft(), name: 'From a command', hosts: [{ hostId: 'demo-lab', gpus: ['0'], allGpus: ['0'] }] };
}

describe('draftFromCommand', () => {
  it('takes the files a pasted command writes as the draft\'s, named by the engine\'s base settings', () => {
    const text = `cat > /srv/tool.jinja <<'EOF'\n{{ messages }}\nEOF\nvllm serve Qwen/Qwen3-8B --chat-template /srv/tool.jinja --max-num-seqs 64`;
    const parsed = parseServeCommand(text, { engineVersion: '0.11.0' }) as ParsedServeCommand;
    const d = draftFromCommand(draft(), parsed);
    expect(d.engines[0]).toMatchObject({ engine: 'vllm', files: { chatTemplate: 'tool.jinja' }, settings: '{"maxRunningRequests":64}' });
    const made = assemble(d, isDemo, currentMessages());
    expect(made.issues).toEqual([]);
    expect(made.parsed?.files).toEqual([file('tool.jinja', '{{ messages }}\n')]);
    expect(made.parsed?.engines[0]?.config).toEqual({ maxRunningRequests: 64, chatTemplate: { file: 'tool.jinja' } });
  });
});
