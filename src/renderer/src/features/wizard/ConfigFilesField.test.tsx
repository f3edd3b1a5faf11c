import { act, cleanup, fireEvent, render, screen } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../../../shared/sha256';
import type { ConfigFile, ConfigFileField } from '../../../../shared/engines/config-files';
import type { FileRefs } from '../../study-draft/draft-files';
import { ConfigFilesField } from './ConfigFilesField';

afterEach(cleanup);

function Harness({ fields = ['chatTemplate', 'optionsFile'] as ConfigFileField[] }: { fields?: ConfigFileField[] }) {
  const [files, setFiles] = useState<ConfigFile[]>([]);
  const [refs, setRefs] = useState<FileRefs>({});
  return (
    <ConfigFilesField
      fields={fields}
      refs={refs}
      files={files}
      errorOf={() => undefined}
      onAttach={(field, file) => {
        setFiles((list) => [...list.filter((f) => f.name !== file.name), file]);
        setRefs((r) => ({ ...r, [field]: file.name }));
      }}
      onRemove={(field) =>
        setRefs((r) => {
          const { [field]: _gone, ...rest } = r;
          return rest;
        })
      }
    />
  );
}

const TEMPLATE = "{% for m in messages %}{{ m['content'] }}{% endfor %}\n";

describe('ConfigFilesField', () => {
  it('attaches a chosen file as text, showing its name, size and short checksum, and replaces or removes it', async () => {
    render(<Harness />);
    await act(async () => {
      fireEvent.change(screen.getByLabelText('Choose a file for the chat template', { selector: 'input' }), { target: { files: [new File([TEMPLATE], 'my template.jinja')] } });
    });
    // The name a file system allows but a project file does not is made safe.
    expect(screen.getByText(`my-template.jinja · ${TEMPLATE.length} bytes · SHA-256 ${sha256Hex(TEMPLATE).slice(0, 12)}…`)).toBeTruthy();
    const replaced = `${TEMPLATE}{# v2 #}\n`.repeat(40);
    await act(async () => {
      fireEvent.change(screen.getByLabelText('Choose a file for the chat template', { selector: 'input' }), { target: { files: [new File([replaced], 'my template.jinja')] } });
    });
    expect(screen.getByText(`my-template.jinja · 2.5 KiB · SHA-256 ${sha256Hex(replaced).slice(0, 12)}…`)).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Remove the chat template my-template.jinja' }));
    expect(screen.queryByText(/my-template\.jinja/)).toBeNull();
    expect(screen.getByRole('button', { name: 'Choose a file for the chat template' })).toBeTruthy();
  });

  it('attaches pasted text under the name given, and refuses a name a project file cannot have', () => {
    render(<Harness fields={['optionsFile']} />);
    expect(screen.queryByText('Chat template')).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Paste text' }));
    fireEvent.change(screen.getByLabelText('File name'), { target: { value: '../extra.yaml' } });
    fireEvent.change(screen.getByLabelText('Text'), { target: { value: 'enable_iter_perf_stats: true\n' } });
    fireEvent.click(screen.getByRole('button', { name: 'Attach' }));
    expect(screen.getByText('A file name may only hold letters, digits and . _ + -, and starts with a letter or digit (at most 128 characters).')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('File name'), { target: { value: 'extra.yaml' } });
    fireEvent.click(screen.getByRole('button', { name: 'Attach' }));
    expect(screen.getByText(/^extra\.yaml · 29 bytes · SHA-256 [0-9a-f]{12}…$/)).toBeTruthy();
    expect(screen.queryByLabelText('Text')).toBeNull();
  });

  it('refuses a file over 1 MiB without reading it, naming it', async () => {
    render(<Harness />);
    const big = new File(['x'], 'big.jinja');
    Object.defineProperty(big, 'size', { value: 2 * 1024 * 1024 });
    await act(async () => {
      fireEvent.change(screen.getByLabelText('Choose a file for the chat template', { selector: 'input' }), { target: { files: [big] } });
    });
    expect(screen.getByText('big.jinja is 2 MiB; a file may be at most 1 MiB.')).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Choose a file for the chat template' })).toBeTruthy();
  });
});
