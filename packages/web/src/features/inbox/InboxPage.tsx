import { useRoute } from '../../lib/router.tsx';
import { usePageTitle } from '../shell/AppShell.tsx';
import { ConversationList } from './ConversationList.tsx';
import { NewConversation } from './NewConversation.tsx';
import { ThreadView } from './ThreadView.tsx';
import { Icon } from '../../lib/icons.tsx';

/** A text prepared elsewhere (a deep link, a contact's "Message" button): shown, never sent. */
export interface Draft {
  to?: string[];
  from?: string;
  body?: string;
}

/** The history state that carries a {@link Draft} to the inbox. */
export interface DraftState {
  draft: Draft;
}

function draftOf(state: unknown): Draft | null {
  const draft = (state as Partial<DraftState> | null)?.draft;
  return draft && typeof draft === 'object' ? draft : null;
}

/**
 * The shared inbox: the conversation list beside the open thread (or the new-message composer).
 * On phones only one of the two shows, with a back button in the thread.
 */
export function InboxPage(props: { conversationId: string | null }) {
  usePageTitle('Inbox');
  const route = useRoute();
  const draft = draftOf(route.state);
  const { conversationId } = props;
  const isNew = conversationId === 'new';
  return (
    <div className={conversationId ? 'inbox showing-thread' : 'inbox'}>
      <ConversationList selectedId={isNew ? null : conversationId} />
      <div className="thread-pane">
        {isNew ? (
          // Every arrival (a deep link's draft, a click on "New message") remounts the
          // composer: a new message starts from what it was given, never from the last one.
          <NewConversation
            key={route.search.toString() + JSON.stringify(route.state)}
            draft={draft}
          />
        ) : conversationId ? (
          <ThreadView key={conversationId} id={conversationId} draft={draft} />
        ) : (
          <div className="thread-empty">
            <Icon name="message" size={40} />
            <h2>Pick a conversation</h2>
            <p className="muted">
              Texts from your customers, and everything your team and your integrations send, land
              here as they happen.
            </p>
          </div>
        )}
      </div>
    </div>
  );
}
