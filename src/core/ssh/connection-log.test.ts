import { describe, it, expect } from 'vitest';
import { ConnectionLog, type ConnectionLogEntry } from './connection-log';

describe('ConnectionLog', () => {
  it('keeps the newest entries of each host, oldest first', () => {
    let now = 1000;
    const log = new ConnectionLog({ capacity: 3, now: () => now++ });
    for (let i = 1; i <= 5; i++) log.write('a', 'info', `a${i}`);
    log.write('b', 'warn', 'b1');
    expect(log.entries('a').map((e) => e.message)).toEqual(['a3', 'a4', 'a5']);
    expect(log.entries('b')).toEqual([{ time: 1005, level: 'warn', message: 'b1' }]);
    expect(log.entries('nobody')).toEqual([]);
    log.clear('a');
    expect(log.entries('a')).toEqual([]);
  });

  it('tells subscribers about new entries, for one host or all, until they unsubscribe', () => {
    const log = new ConnectionLog();
    const all: string[] = [];
    const onlyB: ConnectionLogEntry[] = [];
    const offAll = log.subscribe((hostId, entry) => all.push(`${hostId}:${entry.message}`));
    log.subscribe((_hostId, entry) => onlyB.push(entry), 'b');
    log.subscribe(() => {
      throw new Error('a broken subscriber');
    });
    log.write('a', 'info', 'one');
    log.write('b', 'error', 'two');
    offAll();
    log.write('b', 'info', 'three');
    expect(all).toEqual(['a:one', 'b:two']);
    expect(onlyB.map((e) => e.message)).toEqual(['two', 'three']);
  });

  it('gives writers bound to one or several hosts', () => {
    const log = new ConnectionLog();
    log.writer('a')('info', 'just a');
    log.writer(['a', 'b'])('debug', 'shared jump host');
    expect(log.entries('a').map((e) => e.message)).toEqual(['just a', 'shared jump host']);
    expect(log.entries('b').map((e) => [e.level, e.message])).toEqual([['debug', 'shared jump host']]);
  });
});
