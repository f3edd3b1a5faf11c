import { cleanup, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { initialDraft, type CandidateDraft } from '../../study-draft/draft';
import { layoutCandidate } from '../../study-draft/layout-draft';
import { LayoutCandidateRow } from './LayoutCandidateRow';

afterEach(cleanup);

function Harness({ modelId }: { modelId: string }) {
  const base = initialDraft();
  const draft = { modelId, engines: base.engines.map((e) => (e.engine === 'trtllm' ? e : { ...e, enabled: true })) };
  const [candidate, setCandidate] = useState<CandidateDraft>(layoutCandidate(1));
  return (
    <ul>
      <LayoutCandidateRow draft={draft} candidate={candidate} prefix="stages.0.candidates.0" error={() => undefined} onChange={(next) => setCandidate(next)} onRemove={() => undefined} />
      <li data-testid="config">{candidate.config}</li>
    </ul>
  );
}

describe('a parallelism candidate', () => {
  it('takes the layout in typed fields, shows each engine’s GPU count, and follows the layout in its name', () => {
    render(<Harness modelId="Qwen/Qwen3-30B-A3B" />);
    fireEvent.change(screen.getByLabelText('Tensor parallel (TP)'), { target: { value: '4' } });
    fireEvent.change(screen.getByLabelText(/Pipeline parallel \(PP\)/), { target: { value: '2' } });
    expect(screen.getByTestId('config').textContent).toBe('{"tensorParallelSize":4,"pipelineParallelSize":2}');
    expect(screen.getByLabelText('Candidate label')).toHaveProperty('value', 'TP4×PP2');
    const engines = within(screen.getByRole('list', { name: 'Layout tp4xpp2 on each engine' }));
    expect(engines.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['vLLM 0.11.0: 8 GPUs per server', 'SGLang 0.5.5.post1: 8 GPUs per server']);
    fireEvent.change(screen.getByLabelText('Tensor parallel (TP)'), { target: { value: '1' } });
    fireEvent.change(screen.getByLabelText(/Pipeline parallel \(PP\)/), { target: { value: '1' } });
    const single = within(screen.getByRole('list', { name: /^Layout \S+ on each engine$/ }));
    expect(single.getAllByRole('listitem').map((li) => li.textContent)).toEqual(['vLLM 0.11.0: 1 GPU per server', 'SGLang 0.5.5.post1: 1 GPU per server']);
  });

  it('refuses inline what an engine refuses, in the pre-flight’s words', () => {
    render(<Harness modelId="Qwen/Qwen3-14B" />);
    fireEvent.change(screen.getByLabelText('Tensor parallel (TP)'), { target: { value: '3' } });
    const lines = within(screen.getByRole('list', { name: 'Layout tp3 on each engine' })).getAllByRole('listitem').map((li) => li.textContent);
    expect(lines[0]).toBe(
      'vLLM 0.11.0 refuses it: Qwen/Qwen3-14B has 40 attention heads, which vLLM 0.11.0 cannot split evenly over an attention tensor-parallel size of 3 (it needs 40 divisible by 3)',
    );
    fireEvent.click(screen.getByLabelText('DP attention'));
    expect(within(screen.getByRole('list', { name: 'Layout tp3 on each engine' })).getAllByRole('listitem')[0]?.textContent).toMatch(/^vLLM 0\.11\.0 refuses it: vLLM 0\.11\.0 cannot apply dpAttention/);
  });
});
