import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { Profiler } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LogBuffer } from './log-buffer';
import { LOG_ROW_HEIGHT, LogView } from './LogView';

afterEach(() => {
  cleanup();
  vi.restoreAllMocks();
});

const HEIGHT = 320;

function numbered(count: number, line: (i: number) => string = (i) => `line ${i}`): LogBuffer {
  const buffer = new LogBuffer();
  let text = '';
  for (let i = 0; i < count; i++) text += `${line(i)}\n`;
  buffer.append(text);
  return buffer;
}

function renderLog(buffer: LogBuffer, props: { searchable?: boolean; emptyText?: string } = {}) {
  render(<LogView buffer={buffer} title="Server log" label="Server log lines" height={HEIGHT} {...props} />);
  const log = screen.getByRole('log', { name: 'Server log lines' });
  return { log, rows: () => [...log.querySelectorAll<HTMLElement>('.log-line')], follow: () => screen.getByLabelText('Follow') as HTMLInputElement };
}

/** The lines drawn, by their 1-based line numbers. */
function drawnLines(rows: HTMLElement[]): number[] {
  return rows.map((row) => Number(row.dataset.line));
}

describe('LogView', () => {
  it('draws only the visible slice of 100,000 lines, at the end while following', () => {
    const buffer = numbered(100_000);
    const { log, rows, follow } = renderLog(buffer);
    expect(rows().length).toBeGreaterThan(10);
    expect(rows().length).toBeLessThan(60);
    expect(drawnLines(rows()).at(-1)).toBe(100_000);
    expect(rows().at(-1)!.textContent).toBe('line 99999');
    expect(follow().checked).toBe(true);
    expect(log.scrollTop).toBe(100_000 * LOG_ROW_HEIGHT);
    expect(screen.getByRole('heading', { name: /Server log/ }).textContent).toContain('100,000 lines');
    expect(log.getAttribute('tabindex')).toBe('0');
  });

  it('renders lines that arrive at the next frame, still following the end', async () => {
    const buffer = numbered(10);
    const { rows } = renderLog(buffer);
    act(() => buffer.append('eleven\ntwel'));
    expect(rows().at(-1)!.textContent).toBe('line 9');
    act(() => buffer.flush());
    expect(rows().at(-1)!.textContent).toBe('twel');
    buffer.append('ve\n');
    await vi.waitFor(() => expect(rows().at(-1)!.textContent).toBe('twelve'));
  });

  it('renders once per frame for chunks that arrive as separate events within it', async () => {
    const frames: (() => void)[] = [];
    const buffer = new LogBuffer({ schedule: (callback) => (frames.push(callback), () => {}) });
    const onRender = vi.fn();
    render(
      <Profiler id="log" onRender={onRender}>
        <LogView buffer={buffer} title="Server log" label="Server log lines" height={HEIGHT} />
      </Profiler>,
    );
    const before = onRender.mock.calls.length;
    for (let i = 0; i < 20; i++) {
      await act(async () => buffer.append(`chunk ${i}\n`));
    }
    expect(onRender.mock.calls.length).toBe(before);
    expect(frames).toHaveLength(1);
    act(() => frames.shift()!());
    expect(onRender.mock.calls.length - before).toBe(1);
    expect(screen.getByRole('log', { name: 'Server log lines' }).querySelector('.log-line:last-child')!.textContent).toBe('chunk 19');
  });

  it('pauses following when scrolled up, counts the new lines and jumps back to the end', () => {
    const buffer = numbered(1000);
    const { log, rows, follow } = renderLog(buffer);
    log.scrollTop = 100 * LOG_ROW_HEIGHT;
    fireEvent.scroll(log);
    expect(follow().checked).toBe(false);
    expect(drawnLines(rows())).toContain(101);
    act(() => {
      buffer.append('new 1\nnew 2\nnew 3\n');
      buffer.flush();
    });
    // Still where the user left it.
    expect(drawnLines(rows())).toContain(101);
    expect(drawnLines(rows())).not.toContain(1003);
    fireEvent.click(screen.getByRole('button', { name: '3 new lines — jump to end' }));
    expect(follow().checked).toBe(true);
    expect(rows().at(-1)!.textContent).toBe('new 3');
    expect(log.scrollTop).toBe(1003 * LOG_ROW_HEIGHT);
    expect(screen.queryByRole('button', { name: /new lines/ })).toBeNull();
  });

  it('resumes following when scrolled back to the end, and follows again when ticked', () => {
    const buffer = numbered(1000);
    const { log, follow } = renderLog(buffer);
    fireEvent.click(follow());
    expect(follow().checked).toBe(false);
    log.scrollTop = 0;
    fireEvent.scroll(log);
    log.scrollTop = 1000 * LOG_ROW_HEIGHT - HEIGHT;
    fireEvent.scroll(log);
    expect(follow().checked).toBe(true);
  });

  it('moves with Home, End, PageUp and PageDown on the focused pane', () => {
    const buffer = numbered(1000);
    const { log, rows, follow } = renderLog(buffer);
    log.focus();
    fireEvent.keyDown(log, { key: 'Home' });
    expect(follow().checked).toBe(false);
    expect(log.scrollTop).toBe(0);
    expect(drawnLines(rows())[0]).toBe(1);
    fireEvent.keyDown(log, { key: 'PageDown' });
    const page = HEIGHT - 2 * LOG_ROW_HEIGHT;
    expect(log.scrollTop).toBe(page);
    fireEvent.keyDown(log, { key: 'PageUp' });
    expect(log.scrollTop).toBe(0);
    fireEvent.keyDown(log, { key: 'End' });
    expect(follow().checked).toBe(true);
    expect(drawnLines(rows()).at(-1)).toBe(1000);
  });

  it('searches: counts matching lines, scrolls to and highlights the current one, Enter and Shift+Enter step', () => {
    const buffer = numbered(10_000, (i) => (i === 100 || i === 5000 || i === 9000 ? `line ${i} KV cache usage` : `line ${i}`));
    const { log, rows, follow } = renderLog(buffer);
    const search = screen.getByLabelText('Search Server log');
    fireEvent.change(search, { target: { value: 'kv CACHE' } });
    // Find as you type: from the end of the view, the nearest match above it.
    expect(screen.getByText('3 of 3 matching lines')).toBeTruthy();
    expect(follow().checked).toBe(false);
    const current = () => log.querySelector<HTMLElement>('.log-line.is-current');
    expect(current()!.dataset.line).toBe('9001');
    expect(current()!.querySelector('mark.is-current')!.textContent).toBe('KV cache');

    fireEvent.keyDown(search, { key: 'Enter' });
    expect(screen.getByText('1 of 3 matching lines')).toBeTruthy();
    expect(current()!.dataset.line).toBe('101');
    expect(log.scrollTop).toBe(Math.round(100 * LOG_ROW_HEIGHT - HEIGHT / 2 + LOG_ROW_HEIGHT / 2));
    fireEvent.keyDown(search, { key: 'Enter' });
    expect(current()!.dataset.line).toBe('5001');
    fireEvent.keyDown(search, { key: 'Enter', shiftKey: true });
    expect(current()!.dataset.line).toBe('101');
    fireEvent.click(screen.getByRole('button', { name: 'Previous match' }));
    expect(current()!.dataset.line).toBe('9001');
    fireEvent.click(screen.getByRole('button', { name: 'Next match' }));
    expect(current()!.dataset.line).toBe('101');
    expect(drawnLines(rows())).toContain(101);

    fireEvent.click(screen.getByLabelText('Only matching lines'));
    expect(rows().map((r) => r.textContent)).toEqual(['line 100 KV cache usage', 'line 5000 KV cache usage', 'line 9000 KV cache usage']);

    fireEvent.change(search, { target: { value: 'no such text' } });
    expect(screen.getByText('No match')).toBeTruthy();
    expect(log.textContent).toContain('No line matches “no such text”.');
  });

  it('finds lines that stream in after the search was typed', () => {
    const buffer = numbered(5);
    renderLog(buffer);
    fireEvent.change(screen.getByLabelText('Search Server log'), { target: { value: 'error' } });
    expect(screen.getByText('No match')).toBeTruthy();
    act(() => {
      buffer.append('\x1b[31mERROR\x1b[0m one\nfine\nerror two\n');
      buffer.flush();
    });
    expect(screen.getByText(/of 2 matching lines/)).toBeTruthy();
  });

  it('shows ANSI colours as classes, never the escapes, and copies plain text', async () => {
    const buffer = new LogBuffer();
    buffer.append('\x1b]0;vllm\x07\x1b[32mINFO\x1b[0m 12-01 20:01:16 Started server\n\x1b[1;31mERROR\x1b[0m \x1b[38;2;255;128;0mboom\x1b[0m\n');
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const { log, rows } = renderLog(buffer);
    expect(rows().map((r) => r.textContent)).toEqual(['INFO 12-01 20:01:16 Started server', 'ERROR boom']);
    expect(log.textContent).not.toContain('\x1b');
    expect(log.querySelector('.ansi-fg-2')!.textContent).toBe('INFO');
    expect(log.querySelector('.ansi-bold.ansi-fg-1')!.textContent).toBe('ERROR');
    expect((log.querySelector('span[style]') as HTMLElement).style.color).toBe('rgb(255, 128, 0)');
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Copy all lines of “Server log”' }));
    });
    expect(writeText).toHaveBeenCalledWith('INFO 12-01 20:01:16 Started server\nERROR boom');
    expect(screen.getByRole('button', { name: 'Copy all lines of “Server log”' }).textContent).toBe('Copied');
  });

  it('says when it is empty, and counts lines dropped beyond its capacity', () => {
    const empty = new LogBuffer();
    const { log } = renderLog(empty, { emptyText: 'No output yet.' });
    expect(log.textContent).toBe('No output yet.');
    expect(screen.getByRole('button', { name: /Copy all/ }).hasAttribute('disabled')).toBe(true);
    cleanup();

    const small = new LogBuffer({ capacity: 3 });
    small.append('a\nb\nc\nd\ne\n');
    renderLog(small, { searchable: false });
    expect(screen.getByRole('heading', { name: /Server log/ }).textContent).toContain('3 lines · 2 earlier lines dropped');
    expect(screen.queryByLabelText('Search Server log')).toBeNull();
  });
});
