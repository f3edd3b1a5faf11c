// Renderer suites share the machine with the sshd and simulated-GPU suites: on two loaded cores a render can take
// longer than Testing Library's 1 s default for findBy/waitFor. What the tests wait for is unchanged.
import { configure } from '@testing-library/react';

configure({ asyncUtilTimeout: 5_000 });
