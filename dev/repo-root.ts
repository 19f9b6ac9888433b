// The repository's root, for the development scripts: the package's root, the same whether a
// module runs from its source under dev/ (as the tests import it) or compiled under
// dist-dev/dev/ (as npm runs it).
export { PACKAGE_ROOT as REPO_ROOT } from '../src/common/package-root.js';
