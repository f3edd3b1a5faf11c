// Turns the cluster script's output (cluster-script.ts) into a ClusterInventory. Partitions, nodes and the version
// must be readable, or the read fails naming the command and what it said; accounting is optional.
import { ServelabError } from '../../shared/contract';
import {
  ClusterInventorySchema,
  type ClusterAssociation,
  type ClusterInventory,
  type ClusterNode,
  type ClusterNodeType,
  type ClusterPartition,
  PARTITION_STATES,
} from '../../shared/model/cluster';
import { splitProbeSections, type ProbeSection } from '../inventory/parse-probe';
import { ASSOC_FIELDS, CLUSTER_SECTIONS, USER_FIELDS } from './cluster-script';
import { parseNodeState } from './node-state';
import { parseGres, parseKeyValueLine, parseNameList, parseSlurmMinutes, valueOrNull } from './slurm-fields';

function failed(what: string, section: ProbeSection | undefined): ServelabError {
  const said = section?.output.trim().split('\n').slice(-3).join(' | ') ?? '';
  return new ServelabError(
    'REMOTE_COMMAND_FAILED',
    `${what} failed on the login node${section?.rc != null ? ` (exit code ${section.rc})` : ''}${said ? `: ${said}` : '; the login shell may not be POSIX sh compatible.'}`,
    { details: { command: what, code: section?.rc ?? null } },
  );
}

function required(sections: Map<string, ProbeSection>, name: string, command: string): string {
  const section = sections.get(name);
  if (!section || section.rc !== 0) throw failed(command, section);
  return section.output;
}

/**
 * `sinfo --version` prints PACKAGE_NAME and the version (print_slurm_version, src/common/proc_args.c): `slurm 23.11.4`
 * upstream (configure.ac's AC_INIT), `slurm-wlm 22.05.8` from Debian's package.
 */
export function parseSlurmVersion(text: string): string {
  const match = /^slurm\S*\s+(\d+\.\d+[\w.-]*)\s*$/m.exec(text);
  if (!match) throw new ServelabError('REMOTE_COMMAND_FAILED', `sinfo --version printed no Slurm version: ${text.trim().slice(0, 200)}`);
  return match[1] as string;
}

function int(value: string | undefined): number | null {
  return value !== undefined && /^\d+$/.test(value.trim()) ? Number(value) : null;
}

/** A field of a record, or a failure naming the record and the field. */
function field(record: Map<string, string>, key: string, what: string): string {
  const value = record.get(key);
  if (value === undefined) throw new ServelabError('REMOTE_COMMAND_FAILED', `${what} has no ${key}= field`);
  return value;
}

function minutes(value: string, what: string): number | null {
  try {
    return parseSlurmMinutes(value);
  } catch (error) {
    throw new ServelabError('REMOTE_COMMAND_FAILED', `${what}: ${(error as Error).message}`);
  }
}

/** `scontrol -o show node` → nodes. A `Reason=` loses Slurm's trailing `[user@time]`. */
export function parseNodes(text: string): ClusterNode[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('NodeName='))
    .map((line) => {
      const record = parseKeyValueLine(line);
      const name = field(record, 'NodeName', 'A node');
      const what = `Node ${name}`;
      // CPUTot: the CPUs Slurm schedules (CPUEfctv, 22.05 and later, leaves out specialized cores).
      const cpus = int(record.get('CPUEfctv')) ?? int(field(record, 'CPUTot', what));
      if (cpus === null) throw new ServelabError('REMOTE_COMMAND_FAILED', `${what} has no CPU count: CPUTot=${record.get('CPUTot')}`);
      const reason = valueOrNull(record.get('Reason'));
      return {
        name,
        state: parseNodeState(field(record, 'State', what)),
        reason: reason === null ? null : reason.replace(/\s*\[[^\]]*@[^\]]*\]$/, ''),
        partitions: parseNameList(record.get('Partitions')) ?? [],
        cpus,
        memoryMiB: int(record.get('RealMemory')),
        gres: parseGres(record.get('Gres') ?? ''),
        features: parseNameList(record.get('AvailableFeatures')) ?? [],
        arch: valueOrNull(record.get('Arch')),
      };
    });
}

/** `scontrol -o show partition` → partitions; their node names come from the nodes' `Partitions=`. */
export function parsePartitions(text: string, nodes: ClusterNode[]): ClusterPartition[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('PartitionName='))
    .map((line) => {
      const record = parseKeyValueLine(line);
      const name = field(record, 'PartitionName', 'A partition');
      const what = `Partition ${name}`;
      const state = field(record, 'State', what);
      return {
        name,
        state: (PARTITION_STATES as readonly string[]).includes(state) ? (state as ClusterPartition['state']) : 'UNKNOWN',
        isDefault: record.get('Default') === 'YES',
        nodeList: valueOrNull(record.get('Nodes')) ?? '',
        nodes: nodes.filter((node) => node.partitions.includes(name)).map((node) => node.name),
        maxTimeMinutes: minutes(field(record, 'MaxTime', what), `${what} MaxTime`),
        defaultTimeMinutes: minutes(field(record, 'DefaultTime', what), `${what} DefaultTime`),
        totalCpus: int(record.get('TotalCPUs')),
        totalNodes: int(record.get('TotalNodes')),
        allowAccounts: parseNameList(record.get('AllowAccounts')),
        allowQos: parseNameList(record.get('AllowQos')),
        qos: valueOrNull(record.get('QoS')),
      };
    });
}

/** Groups nodes by CPUs, memory and GPUs, in the order first seen. */
export function nodeTypesOf(nodes: ClusterNode[]): ClusterNodeType[] {
  const types = new Map<string, ClusterNodeType>();
  for (const node of nodes) {
    const gpus = node.gres.filter((gres) => gres.name === 'gpu');
    const gpuTypes = [...new Set(gpus.map((gres) => gres.type))];
    const gpuType = gpuTypes.length === 1 ? (gpuTypes[0] ?? null) : gpuTypes.length > 1 ? gpuTypes.filter((t) => t !== null).join('+') : null;
    const gpusPerNode = gpus.reduce((sum, gres) => sum + gres.count, 0);
    const key = JSON.stringify([node.cpus, node.memoryMiB, gpuType, gpusPerNode]);
    const type = types.get(key) ?? { cpus: node.cpus, memoryMiB: node.memoryMiB, gpuType, gpusPerNode, nodes: [], partitions: [] };
    type.nodes.push(node.name);
    for (const partition of node.partitions) if (!type.partitions.includes(partition)) type.partitions.push(partition);
    types.set(key, type);
  }
  return [...types.values()];
}

/** `sacctmgr -nP show assoc format=Cluster,Account,User,Partition,QOS,DefaultQOS` → the user's associations. */
export function parseAssociations(text: string): ClusterAssociation[] {
  return text
    .split('\n')
    .map((line) => line.split('|'))
    .filter((cells) => cells.length === ASSOC_FIELDS.length && cells[1] !== '')
    .map(([cluster, account, , partition, qos, defaultQos]) => ({
      cluster: cluster as string,
      account: account as string,
      partition: valueOrNull(partition),
      qos: parseNameList(qos) ?? [],
      defaultQos: valueOrNull(defaultQos),
    }));
}

/** `sacctmgr -nP show user NAME format=User,DefaultAccount` → the default account, or null. */
export function parseDefaultAccount(text: string): string | null {
  const row = text
    .split('\n')
    .map((line) => line.split('|'))
    .find((cells) => cells.length === USER_FIELDS.length);
  return valueOrNull(row?.[1]);
}

/** The whole script output → a validated inventory. */
export function parseClusterOutput(stdout: string, opts: { hostId: string; now?: Date }): ClusterInventory {
  const sections = splitProbeSections(stdout);
  const s = CLUSTER_SECTIONS;
  const user = required(sections, s.user, 'id -un').trim().split('\n').pop() ?? '';
  const slurmVersion = parseSlurmVersion(required(sections, s.version, 'sinfo --version'));
  // Partitions first: the script stops after them when slurmctld does not answer.
  const partitionText = required(sections, s.partitions, 'scontrol -o show partition');
  const nodes = parseNodes(required(sections, s.nodes, 'scontrol -o show node'));
  const partitions = parsePartitions(partitionText, nodes);
  const assoc = sections.get(s.associations);
  const accountingOk = assoc?.rc === 0;
  const userAccount = sections.get(s.userAccount);
  const inventory: ClusterInventory = {
    hostId: opts.hostId,
    collectedAt: (opts.now ?? new Date()).toISOString(),
    slurmVersion,
    clusterName: valueOrNull(sections.get(s.config)?.output.trim().split('\n').pop()),
    partitions,
    nodes,
    nodeTypes: nodeTypesOf(nodes),
    user: {
      name: user,
      defaultAccount: accountingOk && userAccount?.rc === 0 ? parseDefaultAccount(userAccount.output) : null,
      associations: accountingOk ? parseAssociations(assoc.output) : [],
    },
    accounting: {
      available: accountingOk,
      message: accountingOk ? null : (assoc?.output.trim().split('\n').slice(-2).join(' ') || 'sacctmgr did not run'),
    },
  };
  const checked = ClusterInventorySchema.safeParse(inventory);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    throw new ServelabError('REMOTE_COMMAND_FAILED', `The cluster's answer does not fit: ${issue?.path.join('.')} ${issue?.message}`);
  }
  return checked.data;
}
