import { describe, expect, it } from 'vitest';
import { ServelabError } from '../../shared/contract/errors';
import { StudyDefinitionSchema, type StudyDefinitionInput } from '../../shared/study/study';
import { KNOWN_GPUS } from '../../shared/study/slurm-plan';
import { previewPlan, studyHardware } from './study-runner';

// studyHardware and previewPlan on a Slurm cluster host: its login node is no box (`core.box()` refuses it), so the
// plan stands on one node of the study's GPU type and never asks for a box.
const refuseBox = {
  box: (hostId: string) => Promise.reject(new ServelabError('NOT_SUPPORTED', `${hostId} is a Slurm cluster's login node`)),
  isDemo: () => false,
  hostLabel: (hostId: string) => hostId,
};

function clusterStudy(slurm: NonNullable<StudyDefinitionInput['hosts'][number]['slurm']>) {
  const input: StudyDefinitionInput = {
    name: 'cluster study',
    model: { id: 'Qwen/Qwen3-8B', variants: [] },
    hosts: [{ hostId: 'hpc', slurm }],
    goal: { kind: 'latency' },
    engines: [{ engine: 'vllm', version: '0.11.0' }],
    stages: [],
    workloads: { primary: { id: 'sharegpt-c4', dataset: { kind: 'sharegpt' }, numPrompts: 100, maxConcurrency: 4 }, generalisation: [] },
  };
  return StudyDefinitionSchema.parse(input);
}

describe('studyHardware on a Slurm cluster host', () => {
  it("is one node's GPUs of the type the GRES names, without a box", async () => {
    const ctx = await studyHardware(clusterStudy({ gpuType: 'h100', gpusPerNode: 2 }), refuseBox);
    expect(ctx).toEqual({ gpus: [0, 1].map((i) => ({ hostId: 'hpc', index: String(i), ...KNOWN_GPUS.h100 })) });
  });

  it('plans and estimates on that node, one launch per configuration with its seconds', async () => {
    const { trials, estimate, gpus } = await previewPlan(clusterStudy({ gpuType: 'fake', gpu: KNOWN_GPUS.a100, gpusPerNode: 1 }), refuseBox);
    expect(gpus.map((g) => g.name)).toEqual(['NVIDIA A100-SXM4-80GB']);
    expect(trials.map((t) => t.status)).toEqual(['planned']);
    expect(Object.keys(estimate.perServerSeconds)).toEqual([trials[0]!.serverKey]);
    expect(estimate.wallSeconds).toBeGreaterThan(0);
  });

  it('says which field is missing when the GPU is unknown', async () => {
    await expect(studyHardware(clusterStudy({ gpuType: 'fake', gpusPerNode: 2 }), refuseBox)).rejects.toThrow(/slurm\.gpu is required/);
  });
});
