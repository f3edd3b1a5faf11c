import { afterEach, describe, expect, it } from 'vitest';
import latencyExampleText from '../../../../../examples/qwen3-8b-latency-h100.servelab?raw';
import { ProjectFileSchema, type ProjectFile } from '../../../../shared/study/study';
import { setLocale } from '../../i18n';
import type { AppState } from '../../store';
import { openProjectName, windowTitle } from './window-title';

const EXAMPLE: ProjectFile = ProjectFileSchema.parse({ ...(JSON.parse(latencyExampleText) as object), state: { status: 'draft', trials: [], decisions: [] } });
const state = { wizard: null, openStudy: { project: EXAMPLE } } as unknown as Pick<AppState, 'wizard' | 'openStudy'>;

afterEach(() => setLocale('en'));

describe('the open project in the window title and status bar', () => {
  it('is named as the study names itself in the app’s language, like its heading', () => {
    const turkish = EXAMPLE.study.translations?.tr?.name;
    expect(turkish).toBeTruthy();
    expect(turkish).not.toBe(EXAMPLE.study.name);
    expect(windowTitle(state)).toBe(`Servelab — ${EXAMPLE.study.name}`);
    setLocale('tr');
    expect(openProjectName(state)).toBe(turkish);
    expect(windowTitle(state)).toBe(`Servelab — ${turkish}`);
  });
});
