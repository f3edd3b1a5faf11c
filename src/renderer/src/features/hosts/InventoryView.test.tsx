import { cleanup, render, screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import type { Inventory } from '../../../../shared/model/inventory';
import { H200_INVENTORY } from '../../testing/fixtures';
import { InventoryView } from './InventoryView';

afterEach(cleanup);

const noGpu = (gpuStatus: Inventory['gpuStatus'], gpuMessage: string | null): Inventory => ({
  ...H200_INVENTORY,
  gpuStatus,
  gpuMessage,
  gpus: [],
  gpuProcesses: [],
  driverVersion: null,
  cudaVersion: null,
});

describe('InventoryView', () => {
  it('renders each GPU as its formatGpuSummary line with memory, load and power', () => {
    render(<InventoryView inventory={H200_INVENTORY} label="h200-lab" />);
    expect(screen.getByText('NVIDIA H200 · 143771 MiB · sm 9.0')).toBeTruthy();
    const meter = screen.getByRole('meter', { name: 'Memory of GPU 0' });
    expect(meter.getAttribute('aria-valuetext')).toBe('0 MiB used, 139.8 GiB free');
    expect(screen.getByText('35 °C')).toBeTruthy();
    expect(screen.getByText('121 / 700 W')).toBeTruthy();
    expect(screen.getByText('0%')).toBeTruthy();
  });

  it('says when no process runs on the GPUs, and lists them otherwise', () => {
    const { rerender } = render(<InventoryView inventory={H200_INVENTORY} label="h200-lab" />);
    expect(screen.getByText('No processes on the GPUs')).toBeTruthy();
    rerender(
      <InventoryView
        inventory={{
          ...H200_INVENTORY,
          gpuProcesses: [{ gpuUuid: H200_INVENTORY.gpus[0]!.uuid, gpuIndex: 0, pid: 4242, processName: 'python3 -m vllm', usedMemoryMiB: 130000 }],
        }}
        label="h200-lab"
      />,
    );
    const row = screen.getByRole('row', { name: /4242/ });
    expect(within(row).getByText('python3 -m vllm')).toBeTruthy();
    expect(within(row).getByText('127 GiB')).toBeTruthy();
  });

  it('shows driver, CUDA, OS and tools', () => {
    render(<InventoryView inventory={H200_INVENTORY} label="h200-lab" />);
    const facts = (term: string) => screen.getByText(term, { selector: 'dt' }).nextElementSibling?.textContent;
    expect(facts('Driver')).toBe('580.159.04');
    expect(facts('CUDA')).toBe('13.0');
    expect(facts('OS')).toBe('Ubuntu 24.04.2 LTS · x86_64');
    expect(facts('CPUs')).toBe('16');
    expect(facts('Memory')).toBe('125 GiB');
    expect(facts('Python')).toBe('3.12.3');
    expect(facts('uv')).toBe('0.7.8');
    expect(facts('pip')).toBe('24.0');
    expect(facts('docker')).toBe('not found');
    expect(facts('Free disk in home')).toBe('500 GiB free of 1,000 GiB/home/ml');
  });

  it("explains gpuStatus 'no-nvidia-smi' instead of listing GPUs", () => {
    render(<InventoryView inventory={noGpu('no-nvidia-smi', 'nvidia-smi: command not found')} label="cpu-box" />);
    const note = screen.getByRole('note');
    expect(within(note).getByText('nvidia-smi was not found on this box')).toBeTruthy();
    expect(within(note).getByText('nvidia-smi: command not found')).toBeTruthy();
    expect(screen.queryByText('No processes on the GPUs')).toBeNull();
  });

  it("explains gpuStatus 'error' with the tool's output", () => {
    render(<InventoryView inventory={noGpu('error', 'NVIDIA-SMI has failed because it couldn’t communicate with the NVIDIA driver.')} label="x" />);
    expect(screen.getByText('nvidia-smi failed on this box')).toBeTruthy();
    expect(screen.getByText(/couldn’t communicate/)).toBeTruthy();
  });

  it('marks a simulated box visibly', () => {
    const { rerender } = render(<InventoryView inventory={H200_INVENTORY} label="h200-lab" />);
    expect(screen.queryByText('Simulated')).toBeNull();
    rerender(<InventoryView inventory={{ ...H200_INVENTORY, simulated: true }} label="demo" />);
    expect(screen.getByText('Simulated')).toBeTruthy();
  });

  it('shows a dash for values nvidia-smi could not give', () => {
    const gpu = { ...H200_INVENTORY.gpus[0]!, temperatureC: null, powerDrawW: null, utilizationPct: null };
    render(<InventoryView inventory={{ ...H200_INVENTORY, gpus: [gpu] }} label="x" />);
    expect(screen.getAllByText('—')).toHaveLength(3);
  });
});
