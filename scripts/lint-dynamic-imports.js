// @ts-check
// ESLint's no-restricted-imports checks `import` and `export … from` but not `import()`, and
// the server loads some modules lazily (undici's parts, pg, the MCP transport): a wrong-way
// `await import('../http/…')` would pass the dependency rule. This rule is the same rule, with
// the same options, run on each `import()` of a literal path.
import { builtinRules } from 'eslint/use-at-your-own-risk';

const restrictedImports = /** @type {import('eslint').Rule.RuleModule} */ (
  builtinRules.get('no-restricted-imports')
);

/** @type {import('eslint').Rule.RuleModule} */
export const noRestrictedDynamicImports = {
  meta: {
    ...restrictedImports.meta,
    docs: { description: 'no-restricted-imports, applied to import() of a literal path' },
  },
  create(context) {
    const listeners = restrictedImports.create(context);
    const check = /** @type {(node: unknown) => void} */ (listeners.ImportDeclaration);
    return {
      ImportExpression(node) {
        const { source } = node;
        const path =
          source.type === 'Literal'
            ? source.value
            : source.type === 'TemplateLiteral' && source.expressions.length === 0
              ? source.quasis[0]?.value.cooked
              : undefined;
        if (typeof path !== 'string') return;
        // Checked as the static import it stands for: a value import, nothing named.
        check({
          type: 'ImportDeclaration',
          importKind: 'value',
          source: { ...source, type: 'Literal', value: path },
          specifiers: [],
          loc: node.loc,
          range: node.range,
        });
      },
    };
  },
};
