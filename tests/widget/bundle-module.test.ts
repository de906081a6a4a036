import { describeBuiltBundle } from './helpers/bundle-checks.js';

// lit and @lit/context are resolved from node_modules by the test server, as a host's bundler would.
describeBuiltBundle('ask-user-kit.js', { selfContained: false });
