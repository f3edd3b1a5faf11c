import { describe, expect, it } from 'vitest';
import type { Dispatch } from '../../core/dispatch/dispatcher';
import { withRecentDocuments } from './recent-documents';

const answering =
  (ok: boolean): Dispatch =>
  async () =>
    ok ? { ok: true, data: {} } : { ok: false, error: { code: 'NOT_FOUND', message: 'no such file' } };

describe('withRecentDocuments', () => {
  it('adds the project a successful open, create or copy leaves in the window', async () => {
    const added: string[] = [];
    const dispatch = withRecentDocuments(answering(true), (p) => added.push(p));
    await dispatch('studies:open', { path: '/p/a.servelab' });
    await dispatch('studies:fromExample', { path: '/p/b.servelab', example: 'x.servelab' });
    await dispatch('studies:saveAs', { path: '/p/a.servelab', out: '/p/a-copy.servelab' });
    await dispatch('studies:rerun', { path: '/p/a.servelab', out: '/p/a-rerun.servelab', engineVersions: {} });
    expect(added).toEqual(['/p/a.servelab', '/p/b.servelab', '/p/a-copy.servelab', '/p/a-rerun.servelab']);
  });

  it('adds nothing for a failed call or a call that opens no project, and passes the envelope through', async () => {
    const added: string[] = [];
    const failing = withRecentDocuments(answering(false), (p) => added.push(p));
    expect(await failing('studies:open', { path: '/p/gone.servelab' })).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    const ok = withRecentDocuments(answering(true), (p) => added.push(p));
    await ok('studies:report', { path: '/p/a.servelab' });
    await ok('hosts:list', {});
    expect(added).toEqual([]);
  });
});
