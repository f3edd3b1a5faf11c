import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { ExtraArgsField } from './ExtraArgsField';

afterEach(cleanup);

function Harness({ version, initial = '' }: { version: string; initial?: string }) {
  const [value, setValue] = useState(initial);
  return <ExtraArgsField label="Extra arguments" engine="vllm" version={version} value={value} onValueChange={setValue} />;
}

function type(input: HTMLInputElement, text: string) {
  fireEvent.change(input, { target: { value: text, selectionStart: text.length } });
  input.setSelectionRange(text.length, text.length);
  fireEvent.select(input);
}

describe('ExtraArgsField', () => {
  it('offers the flags of the chosen version for the word being typed, and takes one with Enter', () => {
    render(<Harness version="0.17.1" />);
    const input = screen.getByRole('combobox', { name: 'Extra arguments' }) as HTMLInputElement;
    type(input, '--performance');
    const options = screen.getAllByRole('option');
    expect(options.map((o) => o.textContent)).toEqual(['--performance-modebalanced | interactivity | throughput']);
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(input.value).toBe('--performance-mode ');
    expect(screen.queryByRole('listbox')).toBeNull();
  });

  it('does not offer a flag the version lacks', () => {
    render(<Harness version="0.11.0" />);
    const input = screen.getByRole('combobox', { name: 'Extra arguments' }) as HTMLInputElement;
    type(input, '--performance');
    expect(screen.queryByRole('listbox')).toBeNull();
    type(input, '--enable-lora-b');
    expect(screen.getAllByRole('option').map((o) => o.querySelector('.mono')?.textContent)).toEqual(['--enable-lora-bias']);
  });

  it('moves through the offers with the arrow keys and closes them with Escape', () => {
    render(<Harness version="0.11.0" initial="" />);
    const input = screen.getByRole('combobox', { name: 'Extra arguments' }) as HTMLInputElement;
    type(input, '--max-num');
    const first = screen.getAllByRole('option').map((o) => o.getAttribute('aria-selected'));
    expect(first[0]).toBe('true');
    fireEvent.keyDown(input, { key: 'ArrowDown' });
    expect(screen.getAllByRole('option')[1]?.getAttribute('aria-selected')).toBe('true');
    fireEvent.keyDown(input, { key: 'Escape' });
    expect(screen.queryByRole('listbox')).toBeNull();
  });
});
