import { describeTwoBundles } from './helpers/two-bundles.js';

// A host that bundles the ES module and then also loads the standalone file (an embedded page, a second copy).
describeTwoBundles('ask-user-kit.js', 'ask-user-kit.standalone.js');
