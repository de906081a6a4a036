/**
 * Import first: the built ES module defines <ask-user-card> before the sources can, so the card under test
 * is the shipped one, whose Markdown chunk carries micromark's production build. (The test server resolves
 * packages with the `development` condition, and micromark's development build needs CommonJS `debug`.)
 * The sources' own copy then finds the tag taken and leaves it.
 */
// The build comes before the browser tests in `npm test` but after the typecheck, so a fresh clone has no
// dist/ to check this import against yet; the browser resolves it at run time.
// @ts-ignore
import '../../../dist/widget/ask-user-kit.js';
