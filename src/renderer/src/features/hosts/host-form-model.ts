import { fieldIssues, type FieldIssue } from '../../../../shared/contract';
import { AddHostInputSchema, UpdateHostInputSchema, isSlurmCluster, type AddHostInput, type Host, type UpdateHostInput } from '../../../../shared/model/host';
import { t, type PlainMessageKey } from '../../i18n';

/** Where a host's connection details come from: typed here, or an ~/.ssh/config alias resolved at every connect. */
export type HostSource = 'address' | 'alias';

/**
 * What the inputs hold: raw strings, as typed (empty optional fields leave the ssh config or the default in charge),
 * and whether the host is a Slurm cluster's login node.
 */
export interface HostFormValues {
  source: HostSource;
  label: string;
  alias: string;
  address: string;
  port: string;
  user: string;
  identityFile: string;
  proxyJump: string;
  password: string;
  slurmCluster: boolean;
}

export type HostField = 'label' | 'alias' | 'address' | 'port' | 'user' | 'identityFile' | 'proxyJump' | 'password';
export type FieldErrors = Partial<Record<HostField, string>>;

export const EMPTY_HOST_FORM: HostFormValues = {
  source: 'address',
  label: '',
  alias: '',
  address: '',
  port: '',
  user: '',
  identityFile: '',
  proxyJump: '',
  password: '',
  slurmCluster: false,
};

export const FIELD_LABEL: Record<HostField, PlainMessageKey> = {
  label: 'hostForm.label',
  alias: 'hostForm.alias',
  address: 'hostForm.address',
  port: 'hostForm.port',
  user: 'hostForm.user',
  identityFile: 'hostForm.identityFile',
  proxyJump: 'hostForm.proxyJump',
  password: 'hostForm.password',
};

/** The order fields appear in, to focus the first wrong one. */
export const FIELD_ORDER: HostField[] = ['label', 'alias', 'address', 'port', 'user', 'identityFile', 'proxyJump', 'password'];

/** The form field a contract issue path points at ("auth.identityFile" → identityFile), or null. */
export function fieldForPath(path: string): HostField | null {
  const last = path.split('.').at(-1) ?? '';
  if ((FIELD_ORDER as string[]).includes(last)) return last as HostField;
  return null;
}

/** "Address is required": the field's label, then the contract's message. */
export function fieldMessage(field: HostField, message: string): string {
  return t('hostForm.fieldError', { field: t(FIELD_LABEL[field]), message });
}

/** Sorts issues onto the form's fields; the ones that name no field come back separately. */
export function issuesToFieldErrors(issues: FieldIssue[]): { errors: FieldErrors; other: FieldIssue[] } {
  const errors: FieldErrors = {};
  const other: FieldIssue[] = [];
  for (const issue of issues) {
    const field = fieldForPath(issue.path);
    if (field) errors[field] ??= fieldMessage(field, issue.message);
    else other.push(issue);
  }
  return { errors, other };
}

/** Fields that only count for one source: the alias for an alias host, the address for a typed one. */
export function fieldApplies(field: HostField, source: HostSource): boolean {
  if (field === 'alias') return source === 'alias';
  if (field === 'address') return source === 'address';
  return true;
}

/** An empty port means "from the ssh config, else 22". */
function parsePort(text: string, errors: FieldErrors): number | null {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^\d+$/.test(trimmed)) {
    errors.port = fieldMessage('port', t('hostForm.portNotNumber'));
    return null;
  }
  return Number(trimmed);
}

/** An optional text field: trimmed, or null when left empty. */
function optional(text: string): string | null {
  const trimmed = text.trim();
  return trimmed === '' ? null : trimmed;
}

function schemaErrors(error: Parameters<typeof fieldIssues>[0], source: HostSource, errors: FieldErrors): void {
  const { errors: found } = issuesToFieldErrors(fieldIssues(error));
  for (const [field, message] of Object.entries(found) as [HostField, string][]) {
    if (fieldApplies(field, source)) errors[field] ??= message;
  }
}

/**
 * Checks the add form against the contract's own `AddHostInputSchema`, so the form accepts exactly what the
 * core accepts. Returns the input to send when valid, and an error per wrong field.
 */
export function validateAddHost(values: HostFormValues): { input: AddHostInput | null; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const port = parsePort(values.port, errors);
  const target = values.source === 'alias' ? optional(values.alias) : optional(values.address);
  if (target === null) errors[values.source] = fieldMessage(values.source, t('hostForm.required'));

  const candidate: AddHostInput = {
    ...(values.label.trim() !== '' ? { label: values.label } : {}),
    ...(values.source === 'alias' ? { alias: values.alias } : { address: values.address }),
  };
  if (port !== null) candidate.port = port;
  for (const field of ['user', 'identityFile', 'proxyJump'] as const) {
    const value = optional(values[field]);
    if (value !== null) candidate[field] = value;
  }
  // Passwords are taken as typed: leading or trailing spaces may be part of them.
  if (values.password !== '') candidate.password = values.password;
  if (values.slurmCluster) candidate.scheduler = 'slurm';

  const parsed = AddHostInputSchema.safeParse(candidate);
  if (!parsed.success) schemaErrors(parsed.error, values.source, errors);
  if (!parsed.success || Object.keys(errors).length > 0) return { input: null, errors };
  return { input: parsed.data, errors };
}

/** The edit form filled from a stored host. The password is never shown: it lives in the keychain. */
export function valuesFromHost(host: Host): HostFormValues {
  return {
    source: host.alias ? 'alias' : 'address',
    label: host.label,
    alias: host.alias ?? '',
    address: host.address,
    port: host.port === null ? '' : String(host.port),
    user: host.user ?? '',
    identityFile: host.identityFile ?? '',
    proxyJump: host.proxyJump ?? '',
    password: '',
    slurmCluster: isSlurmCluster(host),
  };
}

/**
 * The changes between a stored host and the edit form, checked against `UpdateHostInputSchema`. A cleared
 * optional field becomes null, which hands it back to the ssh config (or the default). Only changed fields are
 * sent; `changed` is false when there is nothing to save.
 */
export function validateUpdateHost(
  host: Host,
  values: HostFormValues,
  opts: { forgetPassword: boolean },
): { input: UpdateHostInput | null; errors: FieldErrors; changed: boolean } {
  const errors: FieldErrors = {};
  const source: HostSource = host.alias ? 'alias' : 'address';
  const candidate: UpdateHostInput = { hostId: host.id };
  if (values.label !== host.label) candidate.label = values.label;
  if (source === 'address' && values.address.trim() !== host.address) {
    if (values.address.trim() === '') errors.address = fieldMessage('address', t('hostForm.required'));
    candidate.address = values.address;
  }
  const port = parsePort(values.port, errors);
  if (!errors.port && port !== host.port) candidate.port = port;
  for (const field of ['user', 'identityFile', 'proxyJump'] as const) {
    const value = optional(values[field]);
    if (value !== host[field]) candidate[field] = value;
  }
  if (values.password !== '') candidate.password = values.password;
  if (opts.forgetPassword && host.hasSavedPassword) candidate.forgetPassword = true;
  if (values.slurmCluster !== isSlurmCluster(host)) candidate.scheduler = values.slurmCluster ? 'slurm' : null;

  const parsed = UpdateHostInputSchema.safeParse(candidate);
  if (!parsed.success) schemaErrors(parsed.error, source, errors);
  const changed = Object.keys(candidate).length > 1;
  if (!parsed.success || Object.keys(errors).length > 0) return { input: null, errors, changed };
  return { input: parsed.data, errors, changed };
}

/** Focuses the input named after `field` in `form`, if it is there. */
export function focusField(form: HTMLFormElement, field: HostField): void {
  const element = form.elements.namedItem(field);
  if (element instanceof HTMLInputElement) element.focus();
}
