import { describeBuiltBundle } from './helpers/bundle-checks.js';

// One page per bundle: both define <ask-user-card>, which a page can register only once.
describeBuiltBundle('ask-user-kit.standalone.js', { selfContained: true });
