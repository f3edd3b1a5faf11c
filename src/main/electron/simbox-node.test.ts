import { describe, expect, it } from 'vitest';
import { simboxNodeFor } from './simbox-node';

describe('simboxNodeFor', () => {
  it('runs Electron as Node from a checkout', () => {
    expect(simboxNodeFor({ isPackaged: false, resourcesPath: '/x', electronPath: '/w/node_modules/electron/dist/electron', exists: () => false })).toEqual({
      execPath: '/w/node_modules/electron/dist/electron',
      isElectron: true,
    });
  });

  it('uses the Node.js shipped beside app.asar in a package, never Electron (RunAsNode is off there)', () => {
    const seen: string[] = [];
    const node = simboxNodeFor({ isPackaged: true, resourcesPath: '/opt/Servelab/resources', electronPath: '/opt/Servelab/servelab', exists: (p) => (seen.push(p), true) });
    expect(node).toEqual({ execPath: '/opt/Servelab/resources/node/bin/node', isElectron: false });
    expect(seen).toEqual(['/opt/Servelab/resources/node/bin/node']);
  });

  it('has none in a package that ships no Node.js', () => {
    expect(simboxNodeFor({ isPackaged: true, resourcesPath: 'C:\\Servelab\\resources', electronPath: 'C:\\Servelab\\Servelab.exe', exists: () => false })).toBeNull();
  });
});
