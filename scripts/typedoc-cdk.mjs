/**
 * A TypeDoc plugin (typedoc.json `plugin`) for an API reference a CDK engineer reads:
 *
 * - types of `aws-cdk-lib` and `constructs` (`IRole`, `Duration`, `Construct`, `Stack`) link to their page of the AWS
 *   CDK API reference, as Construct Hub links them, instead of showing as unlinked names;
 * - the index is sorted into sections by what an export is (constructs, their props, the planner, ...), from where it
 *   is declared, rather than one alphabetical list per kind;
 * - `@default` renders as the value or sentence it is (typedoc.json turns off TypeDoc's reading of it as code);
 * - members a class inherits from those packages (`Stack`'s methods and properties on `InferenceStack`,
 *   `Construct.node`) are left out: their reference is the page the base class links to, and repeated on every
 *   construct they buried what the construct adds. A props interface keeps the props it inherits (`StackProps`).
 *
 * Plain JavaScript: TypeDoc loads plugins with Node's `import`, which does not compile TypeScript.
 *
 * @see https://typedoc.org/documents/Development.html#plugins ("Application.converter.addUnknownSymbolResolver")
 * @see https://docs.aws.amazon.com/cdk/api/v2/docs/aws-construct-library.html
 */
import { Comment, CommentTag, Converter, ReflectionKind } from 'typedoc';

const CDK_REFERENCE = 'https://docs.aws.amazon.com/cdk/api/v2/docs';

/** A file of the two packages whose reference is AWS's. */
const CDK_DECLARATION = /node_modules[\\/](aws-cdk-lib|constructs)[\\/]/;

/**
 * The AWS CDK API reference page of a type declared in `aws-cdk-lib` or `constructs`, or undefined for any other.
 *
 * `aws-cdk-lib/aws-iam/lib/role.d.ts` declares `IRole`: `aws-cdk-lib.aws_iam.IRole.html`; the core module
 * (`aws-cdk-lib/core/...`) is the package root: `aws-cdk-lib.Duration.html`; `constructs`: `constructs.Construct.html`.
 *
 * @param {string} packageName the package that declares the type
 * @param {string} packagePath the declaring file, relative to the package
 * @param {string} qualifiedName the type's name in that file (`Stack` or `Stack.of`: the page is the type's)
 * @returns {string | undefined}
 */
export function cdkReferenceUrl(packageName, packagePath, qualifiedName) {
  const name = qualifiedName.split('.')[0];
  if (packageName === 'constructs') {
    return `${CDK_REFERENCE}/constructs.${name}.html`;
  }
  if (packageName !== 'aws-cdk-lib') {
    return undefined;
  }
  const submodule = packagePath.split('/')[0];
  const module = submodule === 'core' || submodule === 'lib' || submodule.endsWith('.d.ts') ? '' : `.${submodule.replace(/-/g, '_')}`;
  return `${CDK_REFERENCE}/aws-cdk-lib${module}.${name}.html`;
}

/**
 * `@default - what happens` (the aws-cdk convention for a default that is no literal value) as the sentence alone:
 * rendered as written, the leading dash made a one-item bullet list under "Default".
 *
 * @param {import('typedoc').Comment | undefined} comment
 */
function defaultAsSentence(comment) {
  for (const tag of comment?.blockTags ?? []) {
    const first = tag.content[0];
    if (tag.tag === '@default' && first?.kind === 'text' && first.text.startsWith('- ')) {
      first.text = first.text.slice(2);
    }
  }
}

/**
 * The index's section of an export, from where it is declared (typedoc.json `categoryOrder` orders them): the
 * constructs first, then their props, what they take (images, model data, targets, policy checks), the planner, the
 * compile contract, the benchmark and proofs, environments and release.
 *
 * @param {string} file the declaring file, relative to the repository (`constructs/sagemaker/inference-stack.ts`)
 * @param {boolean} isConstruct the export is a class that extends `Construct`
 * @param {string} name the export's name
 * @returns {string}
 */
export function categoryOf(file, isConstruct, name) {
  if (file.startsWith('constructs/')) {
    return isConstruct ? 'Constructs' : name.endsWith('Props') ? 'Construct props' : 'Construct building blocks';
  }
  if (/^lib\/(compile)\//.test(file)) return 'Compile contract';
  if (/^lib\/(bench)\//.test(file)) return 'Benchmark and proofs';
  if (/^lib\/(environments|release)\//.test(file)) return 'Environments and release';
  return 'Planner, profiles and catalog';
}

/**
 * Whether a class extends `Construct` (of the `constructs` package), through `aws-cdk-lib` (`Stack`, `Stage`) or
 * through classes of this package, exported or not: asked of the type checker, which sees the private bases.
 *
 * @param {import('typedoc').Context} context
 * @param {import('typedoc').DeclarationReflection} reflection
 * @returns {boolean}
 */
function isConstructClass(context, reflection) {
  const symbol = context.getSymbolFromReflection(reflection);
  if (symbol === undefined) return false;
  const checker = context.checker;
  const seen = new Set();
  const visit = (type) => {
    if (seen.has(type)) return false;
    seen.add(type);
    const base = type.getSymbol();
    if (base?.getName() === 'Construct' && (base.declarations ?? []).some((d) => /node_modules[\\/]constructs[\\/]/.test(d.getSourceFile().fileName))) {
      return true;
    }
    return (checker.getBaseTypes(type) ?? []).some(visit);
  };
  return visit(checker.getDeclaredTypeOfSymbol(symbol));
}

/** @param {import('typedoc').Application} app */
export function load(app) {
  // The type checker answers only while sources are converted: which classes are constructs is noted then.
  const constructClasses = new WeakSet();
  // Members of a class declared in aws-cdk-lib or constructs (inherited from `Stack`, `Resource`, `Construct`, also
  // through a private base of this package, whose own members stay).
  const cdkMembers = new Set();
  app.converter.on(Converter.EVENT_CREATE_DECLARATION, (context, reflection) => {
    if (reflection.kind === ReflectionKind.Class && isConstructClass(context, reflection)) {
      constructClasses.add(reflection);
    }
    if (reflection.parent?.kind === ReflectionKind.Class) {
      const declarations = context.getSymbolFromReflection(reflection)?.declarations ?? [];
      if (declarations.some((d) => CDK_DECLARATION.test(d.getSourceFile().fileName))) {
        cdkMembers.add(reflection);
      }
    }
  });
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    for (const reflection of project.children ?? []) {
      const file = project.getSymbolIdFromReflection(reflection)?.packagePath ?? '';
      const category = categoryOf(file, constructClasses.has(reflection), reflection.name);
      reflection.comment ??= new Comment();
      reflection.comment.blockTags.push(new CommentTag('@category', [{ kind: 'text', text: category }]));
    }
  });

  app.converter.addUnknownSymbolResolver((_ref, _reflection, _part, symbolId) => {
    if (symbolId === undefined) {
      return undefined;
    }
    return cdkReferenceUrl(symbolId.packageName, symbolId.packagePath, symbolId.qualifiedName);
  });

  app.converter.on(Converter.EVENT_RESOLVE_END, (context) => {
    const project = context.project;
    for (const reflection of Object.values(project.reflections)) {
      for (const comment of [reflection.comment, ...(reflection.signatures ?? []).map((s) => s.comment)]) {
        defaultAsSentence(comment);
      }
      // A props interface keeps what it inherits (`env` of StackProps is a prop users pass).
      if (cdkMembers.has(reflection)) {
        project.removeReflection(reflection);
      }
    }
  });
}
