import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { parseAllDocuments } from 'yaml';
import { loadConfig } from '../src/config.js';
import { catalogueModel } from '../src/models/model-catalogue.js';

/**
 * deploy/kubernetes/: every manifest valid against the Kubernetes API schemas (kubernetes-models: the
 * API's OpenAPI definitions, compiled), and the Deployment holding what detectd needs from a cluster. No
 * cluster here: scripts/container-check.sh runs the manifest with `podman kube play`.
 */

const FOLDER = 'deploy/kubernetes';
const read = (file: string) => fs.readFileSync(file, 'utf8');

/** The model class of each kind the manifests use: its validate() checks the object against the API schema. */
const MODELS: Record<string, { validate(object: object): void }> = {
  'v1/ConfigMap': { validate: (object) => new ConfigMap(object as ConfigMap).validate() },
  'v1/Secret': { validate: (object) => new Secret(object as Secret).validate() },
  'v1/Service': { validate: (object) => new Service(object as Service).validate() },
  'apps/v1/Deployment': { validate: (object) => new Deployment(object as Deployment).validate() },
};

interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string };
}

const manifests = fs
  .readdirSync(FOLDER)
  .filter((name) => /\.ya?ml$/.test(name))
  .flatMap((name) =>
    parseAllDocuments(read(path.join(FOLDER, name))).map((document) => {
      expect(document.errors, name).to.deep.equal([]);
      return { file: name, object: document.toJS() as Manifest };
    }),
  );
const one = <T>(kind: string) => {
  const found = manifests.filter(({ object }) => object.kind === kind);
  expect(found, kind).to.have.length(1);
  return found[0].object as unknown as T;
};
const deployment = one<Deployment>('Deployment');
const configMap = one<ConfigMap>('ConfigMap');
const secret = one<Secret>('Secret');
const service = one<Service>('Service');
const pod = deployment.spec!.template.spec!;
const [server] = pod.containers;

/** The documented variables (the Configuration table of docs/configuration.md). */
const DOCUMENTED = new Set([...read('docs/configuration.md').matchAll(/^\| `([A-Z][A-Z0-9_]+)` \|/gm)].map((match) => match[1]));

describe('Kubernetes manifests (deploy/kubernetes)', () => {
  it('every manifest is valid against the Kubernetes API schema of its kind', () => {
    expect(manifests.map(({ object }) => object.kind).sort()).to.deep.equal(['ConfigMap', 'Deployment', 'Secret', 'Service']);
    for (const { file, object } of manifests) {
      const model = MODELS[`${object.apiVersion}/${object.kind}`];
      expect(model, `${file}: ${object.apiVersion} ${object.kind}`).to.not.equal(undefined);
      expect(() => model.validate(object), `${file}: ${object.kind} ${object.metadata.name}`).to.not.throw();
    }
  });

  it('the schema check refuses what the API server would (a port as text, a container without a name)', () => {
    const portAsText = structuredClone(deployment);
    portAsText.spec!.template.spec!.containers[0].ports![0].containerPort = '8080' as unknown as number;
    expect(() => MODELS['apps/v1/Deployment'].validate(portAsText)).to.throw(/containerPort must be integer/);
    const unnamed = structuredClone(deployment) as { spec: { template: { spec: { containers: { name?: string }[] } } } };
    delete unnamed.spec.template.spec.containers[0].name;
    expect(() => MODELS['apps/v1/Deployment'].validate(unnamed)).to.throw(/required property 'name'|must have required property name/);
  });

  it('the Service reaches the pods on their named HTTP port, the one detectd listens on in the image', () => {
    expect(service.spec!.selector).to.deep.equal(deployment.spec!.selector.matchLabels);
    expect(deployment.spec!.template.metadata!.labels).to.deep.include(deployment.spec!.selector.matchLabels!);
    const targetPort = service.spec!.ports![0].targetPort;
    const port = server.ports!.find((candidate) => candidate.name === targetPort);
    expect(port, `container port ${targetPort}`).to.not.equal(undefined);
    expect(read('Dockerfile')).to.match(new RegExp(`^\\s+PORT=${port!.containerPort} \\\\$`, 'm'));
  });

  it('settings: the ConfigMap and the Secret (DETECTD_SECRET, the database URL) hold only documented variables, all of them reaching the server', () => {
    expect(Object.keys(secret.stringData ?? {}).sort()).to.deep.equal(['DETECTD_DATABASE_URL', 'DETECTD_SECRET']);
    const fromSecret = (server.env ?? []).filter((variable) => variable.valueFrom?.secretKeyRef).map((variable) => variable.valueFrom!.secretKeyRef!);
    expect(fromSecret.map((reference) => [reference.name, reference.key]).sort()).to.deep.equal([
      [secret.metadata!.name, 'DETECTD_DATABASE_URL'],
      [secret.metadata!.name, 'DETECTD_SECRET'],
    ]);
    expect(server.envFrom?.map((source) => source.configMapRef?.name)).to.deep.equal([configMap.metadata!.name]);
    for (const name of [...Object.keys(configMap.data ?? {}), ...(server.env ?? []).map((variable) => variable.name)]) expect(DOCUMENTED, name).to.include(name);
  });

  it('the model: a catalogue model, pulled by an init container into the volume the server reads it from', () => {
    const modelPath = configMap.data!.DETECTD_MODEL;
    const name = path.basename(modelPath, '.onnx');
    expect(catalogueModel(name), `${name} in the catalogue`).to.not.equal(undefined);
    const [init] = pod.initContainers!;
    expect(init.image).to.equal(server.image);
    expect(init.command!.join(' ')).to.contain('dist/src/cli.js models pull "$(basename "$DETECTD_MODEL" .onnx)"');
    expect(init.envFrom?.map((source) => source.configMapRef?.name)).to.deep.equal([configMap.metadata!.name]);
    const mountOf = (container: typeof server) => container.volumeMounts!.find((mount) => path.dirname(modelPath) === mount.mountPath);
    expect(mountOf(init)?.name).to.equal(mountOf(server)?.name);
    expect(init.env).to.deep.include({ name: 'DETECTD_MODELS_DIR', value: path.dirname(modelPath) });
    expect(mountOf(server)?.readOnly).to.equal(true);
  });

  it('probes: ready on /readyz, alive on /healthz, time to load the models before liveness counts', () => {
    expect(server.readinessProbe?.httpGet).to.deep.include({ path: '/readyz', port: 'http' });
    expect(server.livenessProbe?.httpGet).to.deep.include({ path: '/healthz', port: 'http' });
    expect(server.startupProbe?.httpGet).to.deep.include({ path: '/healthz', port: 'http' });
  });

  it('a rolling update serves throughout: new pods ready before old ones go, and each old one drains within its grace period', () => {
    expect(deployment.spec!.replicas).to.be.greaterThan(1);
    expect(deployment.spec!.strategy).to.deep.equal({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    const preStopSeconds = Number(server.lifecycle!.preStop!.exec!.command!.join(' ').match(/^sleep (\d+)$/)![1]);
    // The drain answers what is in flight, each request within DETECTD_REQUEST_TIMEOUT_MS.
    const drainSeconds = loadConfig({}).limits.requestTimeoutMs / 1000;
    expect(pod.terminationGracePeriodSeconds).to.be.greaterThan(preStopSeconds + drainSeconds);
  });

  it('resources: CPU and memory requested, ONNX Runtime threads from the CPU request; runs as the image user, unprivileged', () => {
    expect(server.resources?.requests).to.have.keys('cpu', 'memory');
    expect(server.env).to.deep.include({ name: 'DETECTD_INFERENCE_THREADS', valueFrom: { resourceFieldRef: { resource: 'requests.cpu' } } });
    const uid = Number(/useradd --uid (\d+)/.exec(read('Dockerfile'))![1]);
    expect(pod.securityContext).to.deep.include({ runAsNonRoot: true, runAsUser: uid });
    for (const container of [...pod.initContainers!, ...pod.containers]) expect(container.securityContext?.allowPrivilegeEscalation, container.name).to.equal(false);
  });
});
