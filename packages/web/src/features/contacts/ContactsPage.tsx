import type { Contact } from '@switchboard/sdk';
import { useEffect, useState } from 'react';
import { Avatar } from '../../lib/avatar.tsx';
import { formatPhone } from '../../lib/format.ts';
import { SearchField } from '../../lib/form.tsx';
import { Icon } from '../../lib/icons.tsx';
import { useLive, useSession } from '../../lib/session.tsx';
import type { ListOf } from '../../lib/types.ts';
import { usePageTitle } from '../shell/AppShell.tsx';
import { CallButton, TextButton } from '../shell/ReachButtons.tsx';
import { ContactForm } from './ContactForm.tsx';

// The live directory holds the newest 500; past that, searching asks the server.
const DIRECTORY_PAGE = 500;

type Editing = { kind: 'new' } | { kind: 'edit'; contact: Contact } | null;

function matches(contact: Contact, q: string): boolean {
  const digits = q.replace(/\D/g, '');
  const text = [contact.name, contact.email, contact.company, contact.phone]
    .filter(Boolean)
    .join(' ')
    .toLowerCase();
  return text.includes(q) || (digits.length >= 3 && contact.phone.includes(digits));
}

/** Searches the directory: locally while all of it is loaded, on the server beyond that. */
function useSearch(query: string): Contact[] | null {
  const { api } = useSession();
  const { contacts } = useLive();
  const [remote, setRemote] = useState<{ q: string; data: Contact[] } | null>(null);
  const q = query.trim().toLowerCase();
  const complete = contacts !== null && contacts.length < DIRECTORY_PAGE;

  useEffect(() => {
    if (q === '' || complete) return;
    const timer = setTimeout(() => {
      api.get<ListOf<Contact>>('/contacts', { q }).then(
        ({ data }) => setRemote({ q, data }),
        () => setRemote({ q, data: [] }),
      );
    }, 200);
    return () => clearTimeout(timer);
  }, [api, q, complete]);

  if (contacts === null) return null;
  if (q === '') return contacts;
  if (complete) return contacts.filter((c) => matches(c, q));
  return remote?.q === q ? remote.data : null;
}

/** The shared directory: searchable, with create and edit; names are caller ID everywhere. */
export function ContactsPage() {
  usePageTitle('Contacts');
  const { live } = useSession();
  const { contacts } = useLive();
  const [query, setQuery] = useState('');
  const [editing, setEditing] = useState<Editing>(null);
  const results = useSearch(query);

  const save = async (input: Parameters<typeof live.createContact>[0]) => {
    if (editing?.kind === 'edit') await live.updateContact(editing.contact.id, input);
    else await live.createContact(input);
    setEditing(null);
  };

  return (
    <section className="page contacts-page" aria-labelledby="contacts-title">
      <header className="page-header">
        <h1 id="contacts-title">Contacts</h1>
        <button
          type="button"
          className="button primary small"
          onClick={() => setEditing({ kind: 'new' })}
        >
          <Icon name="plus" size={16} />
          <span>New contact</span>
        </button>
      </header>
      <div className="split">
        <div className="card list-card">
          <div className="list-tools">
            <SearchField
              wide
              label="Search contacts"
              placeholder="Search by name, number, email or company"
              value={query}
              onChange={setQuery}
            />
          </div>
          {results === null ? (
            <p className="list-note">Loading contacts…</p>
          ) : results.length === 0 ? (
            <p className="list-note">{query ? 'No contact matches.' : 'No contacts yet.'}</p>
          ) : (
            <ul className="contact-list" aria-label="Contacts">
              {results.map((c) => (
                <ContactRow
                  key={c.id}
                  contact={c}
                  onEdit={() => setEditing({ kind: 'edit', contact: c })}
                />
              ))}
            </ul>
          )}
        </div>
        {editing ? (
          <ContactForm
            key={editing.kind === 'edit' ? editing.contact.id : 'new'}
            contact={editing.kind === 'edit' ? editing.contact : null}
            onSave={save}
            onCancel={() => setEditing(null)}
            sharingPhone={(phone) =>
              (contacts ?? []).filter(
                (o) =>
                  o.phone === phone && !(editing.kind === 'edit' && o.id === editing.contact.id),
              )
            }
            onUpdateExisting={async (existing, input) => {
              // Only what was typed: empty fields leave the existing contact's values alone.
              const typed = Object.entries(input).filter(([, v]) => v !== null);
              await live.updateContact(existing.id, Object.fromEntries(typed));
              setEditing(null);
            }}
            {...(editing.kind === 'edit'
              ? {
                  onDelete: async () => {
                    await live.deleteContact(editing.contact.id);
                    setEditing(null);
                  },
                  onMerge: async (duplicate: Contact) => {
                    const merged = await live.mergeContacts(editing.contact.id, duplicate.id);
                    setEditing({ kind: 'edit', contact: merged });
                  },
                }
              : {})}
          />
        ) : (
          <aside className="card hint-card">
            <h2>Caller ID for the whole team</h2>
            <p className="muted">
              A contact’s name shows instead of its number in the inbox and the call history, for
              everyone on the account, as soon as it is saved.
            </p>
          </aside>
        )}
      </div>
    </section>
  );
}

function ContactRow(props: { contact: Contact; onEdit(): void }) {
  const c = props.contact;
  const label = c.name ?? formatPhone(c.phone);
  return (
    <li className="contact-row" data-contact-id={c.id}>
      <Avatar name={c.name} seed={c.phone} />
      <div className="contact-main">
        <span className="contact-name">{label}</span>
        <span className="muted">
          {formatPhone(c.phone)}
          {c.company ? ` · ${c.company}` : ''}
          {c.email ? ` · ${c.email}` : ''}
        </span>
      </div>
      <div className="row-actions">
        <TextButton phone={c.phone} label={label} />
        <CallButton phone={c.phone} label={label} title="Call" />
        <button
          type="button"
          className="icon-button"
          aria-label={`Edit ${label}`}
          title="Edit"
          onClick={props.onEdit}
        >
          <Icon name="edit" />
        </button>
      </div>
    </li>
  );
}
