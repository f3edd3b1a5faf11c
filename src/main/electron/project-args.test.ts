import { describe, expect, it } from 'vitest';
import { projectPathsFromArgv, projectsHandedOver } from './project-args';

describe('projectPathsFromArgv', () => {
  it('takes the .servelab paths after the executable, resolving relative ones against the launch folder', () => {
    expect(projectPathsFromArgv(['/opt/Servelab/servelab', 'study.servelab', '/data/b.servelab'], '/home/me/lab')).toEqual([
      '/home/me/lab/study.servelab',
      '/data/b.servelab',
    ]);
  });

  it('skips the app folder of a checkout launch, switches and files that are not projects', () => {
    const argv = ['/usr/bin/electron', '.', '--no-sandbox', '--allow-file-access-from-files', 'notes.txt', 'guide.md', 'x.servelab'];
    expect(projectPathsFromArgv(argv, '/w')).toEqual(['/w/x.servelab']);
  });

  it('reads file:// URLs, as a Linux desktop entry (Exec … %U) may pass them', () => {
    expect(projectPathsFromArgv(['servelab', 'file:///home/me/My%20Studies/qwen.servelab'], '/')).toEqual(['/home/me/My Studies/qwen.servelab']);
  });

  it('skips URLs of other schemes instead of reading them as relative paths', () => {
    expect(projectPathsFromArgv(['servelab', 'sftp://box/home/me/a.servelab', 'smb://nas/share/b.servelab', 'c.servelab'], '/home/me')).toEqual(['/home/me/c.servelab']);
  });

  it('finds nothing in a plain launch', () => {
    expect(projectPathsFromArgv(['/opt/Servelab/servelab'], '/')).toEqual([]);
    expect(projectPathsFromArgv([], '/')).toEqual([]);
  });
});

describe('projectsHandedOver', () => {
  it('reads the projects a second launch sent with the lock, keeping only absolute project paths', () => {
    expect(projectsHandedOver({ projects: ['/home/u/a.servelab', 'rel.servelab', '/home/u/notes.txt'] })).toEqual(['/home/u/a.servelab']);
    expect(projectsHandedOver({ projects: [] })).toEqual([]);
  });

  it('is null when the launch sent nothing readable, so argv is read instead', () => {
    expect(projectsHandedOver(undefined)).toBeNull();
    expect(projectsHandedOver({})).toBeNull();
    expect(projectsHandedOver({ projects: '/home/u/a.servelab' })).toBeNull();
    expect(projectsHandedOver({ projects: [1] })).toBeNull();
  });
});
