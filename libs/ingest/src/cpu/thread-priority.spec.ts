import { lowerThreadPriority } from './thread-priority';

describe('lowerThreadPriority', () => {
  it('leaves the priority alone off Linux, where the call would lower the whole process', () => {
    expect(lowerThreadPriority(10, 'darwin')).toBe(false);
    expect(lowerThreadPriority(10, 'win32')).toBe(false);
  });

  it('does nothing for a nice value of 0 (the process\'s own)', () => {
    expect(lowerThreadPriority(0, 'linux')).toBe(false);
  });
});
