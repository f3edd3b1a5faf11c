import { act, cleanup, render, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { EChartsCoreOption } from 'echarts/core';
import { EChart, type ChartTheme } from './EChart';

// jsdom has no canvas: echarts is a stand-in that records what the component asks of it.
const fake = vi.hoisted(() => ({
  init: vi.fn(),
  setOption: vi.fn(),
  dispose: vi.fn(),
}));
vi.mock('./echarts-runtime', () => ({
  init: fake.init.mockImplementation(() => ({ setOption: fake.setOption, dispose: fake.dispose, resize: vi.fn(), getDataURL: vi.fn() })),
}));

/** An IntersectionObserver the test moves into view by hand. */
let reveal: () => void = () => {};
class FakeIntersectionObserver {
  constructor(private readonly callback: (entries: { isIntersecting: boolean }[]) => void) {}
  observe() {
    reveal = () => this.callback([{ isIntersecting: true }]);
  }
  disconnect() {}
}

beforeEach(() => {
  vi.stubGlobal('IntersectionObserver', FakeIntersectionObserver);
  vi.stubGlobal(
    'ResizeObserver',
    class {
      observe() {}
      disconnect() {}
    },
  );
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
  fake.init.mockClear();
  fake.setOption.mockClear();
  fake.dispose.mockClear();
});

const optionA = (theme: ChartTheme): EChartsCoreOption => ({ title: { text: `A ${theme.mode}` } });
const optionB = (theme: ChartTheme): EChartsCoreOption => ({ title: { text: `B ${theme.mode}` } });

describe('EChart', () => {
  it('loads echarts and draws only when its box comes near the window, a placeholder in its place until then', async () => {
    const { rerender, unmount } = render(<EChart title="Mean TTFT" option={optionA} />);
    await act(async () => {});
    expect(fake.init).not.toHaveBeenCalled();
    expect(screen.getByText('Drawing the chart…')).toBeTruthy();
    expect(screen.getByRole('img', { name: 'Mean TTFT' }).getAttribute('aria-busy')).toBe('true');

    await act(async () => reveal());
    expect(fake.init).toHaveBeenCalledTimes(1);
    // Drawn once with the option it holds, not a second time when the component learns it is drawn.
    expect(fake.setOption).toHaveBeenCalledTimes(1);
    expect(fake.setOption.mock.calls[0]![0]).toEqual({ title: { text: 'A light' } });
    expect(screen.queryByText('Drawing the chart…')).toBeNull();

    rerender(<EChart title="Mean TTFT" option={optionB} />);
    expect(fake.setOption).toHaveBeenCalledTimes(2);
    expect(fake.setOption.mock.calls[1]![0]).toEqual({ title: { text: 'B light' } });
    rerender(<EChart title="Mean TTFT" option={optionB} />);
    expect(fake.setOption).toHaveBeenCalledTimes(2);

    unmount();
    expect(fake.dispose).toHaveBeenCalledTimes(1);
  });

  it('draws the latest option when the option changed while echarts was loading, and nothing after unmount', async () => {
    const { rerender, unmount } = render(<EChart title="T" option={optionA} />);
    rerender(<EChart title="T" option={optionB} />);
    await act(async () => reveal());
    expect(fake.setOption.mock.calls.map((c) => c[0])).toEqual([{ title: { text: 'B light' } }]);
    unmount();

    render(<EChart title="U" option={optionA} />);
    const revealLate = reveal;
    cleanup();
    await act(async () => revealLate());
    expect(fake.init).toHaveBeenCalledTimes(1);
  });
});
