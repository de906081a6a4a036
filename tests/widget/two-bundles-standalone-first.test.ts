import { describeTwoBundles } from './helpers/two-bundles.js';

// A page that embeds the standalone file (as the README does) and then loads the ES module too.
describeTwoBundles('ask-user-kit.standalone.js', 'ask-user-kit.js');
