import { describe, expect, it } from 'vitest';
import { OpenRequests } from './open-requests';

describe('OpenRequests', () => {
  it('keeps absolute project paths until taken, oldest first, announcing each addition', () => {
    let announced = 0;
    const requests = new OpenRequests(() => void (announced += 1));
    expect(requests.add(['/a/one.servelab'])).toEqual(['/a/one.servelab']);
    expect(requests.add(['/a/two.servelab', '/a/one.servelab'])).toEqual(['/a/two.servelab', '/a/one.servelab']);
    expect(announced).toBe(2);
    // Asked for again, a project moves to the end: it is the newest request.
    expect(requests.take()).toEqual(['/a/two.servelab', '/a/one.servelab']);
    expect(requests.take()).toEqual([]);
  });

  it('keeps nothing that is not an absolute project path, and then announces nothing', () => {
    let announced = 0;
    const requests = new OpenRequests(() => void (announced += 1));
    expect(requests.add(['relative.servelab', '/a/notes.txt', '/a/x\0.servelab'])).toEqual([]);
    expect(announced).toBe(0);
    expect(requests.take()).toEqual([]);
  });
});
