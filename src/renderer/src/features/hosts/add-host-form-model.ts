import { fieldIssues, type FieldIssue } from '../../../../shared/contract';
import { AddHostInputSchema, type AddHostInput } from '../../../../shared/model/host';
import { t, type PlainMessageKey } from '../../i18n';

export type AuthMethod = 'key' | 'password';

/** What the inputs hold: raw strings, as typed. */
export interface AddHostFormValues {
  label: string;
  address: string;
  port: string;
  user: string;
  method: AuthMethod;
  identityFile: string;
  password: string;
}

export type AddHostField = 'label' | 'address' | 'port' | 'user' | 'identityFile' | 'password';
export type FieldErrors = Partial<Record<AddHostField, string>>;

export const EMPTY_FORM: AddHostFormValues = {
  label: '',
  address: '',
  port: '22',
  user: '',
  method: 'key',
  identityFile: '',
  password: '',
};

export const FIELD_LABEL: Record<AddHostField, PlainMessageKey> = {
  label: 'addHost.label',
  address: 'addHost.address',
  port: 'addHost.port',
  user: 'addHost.user',
  identityFile: 'addHost.identityFile',
  password: 'addHost.password',
};

/** The order fields appear in, to focus the first wrong one. */
export const FIELD_ORDER: AddHostField[] = ['label', 'address', 'port', 'user', 'identityFile', 'password'];

/** The form field a contract issue path points at ("auth.identityFile" → identityFile), or null. */
export function fieldForPath(path: string): AddHostField | null {
  const last = path.split('.').at(-1) ?? '';
  if ((FIELD_ORDER as string[]).includes(last)) return last as AddHostField;
  return null;
}

/** "Address is required": the field's label, then the contract's message. */
export function fieldMessage(field: AddHostField, message: string): string {
  return t('addHost.fieldError', { field: t(FIELD_LABEL[field]), message });
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

/**
 * Checks the form against the contract's own `AddHostInputSchema`, so the form accepts exactly what the core
 * accepts. Returns the input to send when valid, and an error per wrong field.
 */
export function validateAddHost(values: AddHostFormValues): { input: AddHostInput | null; errors: FieldErrors } {
  const errors: FieldErrors = {};
  const portText = values.port.trim();
  let port = 22;
  if (portText === '') errors.port = fieldMessage('port', t('addHost.portRequired'));
  else if (!/^\d+$/.test(portText)) errors.port = fieldMessage('port', t('addHost.portNotNumber'));
  else port = Number(portText);

  const candidate: AddHostInput = {
    ...(values.label.trim() !== '' ? { label: values.label } : {}),
    address: values.address,
    port,
    user: values.user,
    auth: values.method === 'key' ? { method: 'key', identityFile: values.identityFile } : { method: 'password', password: values.password },
  };
  const parsed = AddHostInputSchema.safeParse(candidate);
  if (!parsed.success) {
    const { errors: schemaErrors } = issuesToFieldErrors(fieldIssues(parsed.error));
    for (const [field, message] of Object.entries(schemaErrors) as [AddHostField, string][]) errors[field] ??= message;
  }
  if (!parsed.success || Object.keys(errors).length > 0) return { input: null, errors };
  return { input: parsed.data, errors };
}
