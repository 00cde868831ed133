import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  classifyKeyword,
  defaultHelpReply,
  START_CONFIRMATION,
  STOP_CONFIRMATION,
} from '../../src/domain/opt-out-keywords.ts';
import { countSegments } from '../../src/domain/segments.ts';

describe('keyword families', () => {
  test('STOP, STOPALL, UNSUBSCRIBE, CANCEL, END and QUIT opt out', () => {
    for (const word of ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT']) {
      assert.equal(classifyKeyword(word), 'stop', word);
    }
  });

  test('START, UNSTOP and YES opt back in', () => {
    for (const word of ['START', 'UNSTOP', 'YES']) {
      assert.equal(classifyKeyword(word), 'start', word);
    }
  });

  test('HELP and INFO ask for the help reply', () => {
    for (const word of ['HELP', 'INFO']) {
      assert.equal(classifyKeyword(word), 'help', word);
    }
  });

  test('other single words are not keywords', () => {
    for (const word of ['NO', 'OK', 'STAHP', 'SUBSCRIBE', 'HI', 'UNSUB', 'STOPPED']) {
      assert.equal(classifyKeyword(word), null, word);
    }
  });
});

describe('keyword matching', () => {
  test('matching ignores case', () => {
    for (const body of ['stop', 'Stop', 'sToP', 'unsubscribe', 'Yes', 'info']) {
      assert.notEqual(classifyKeyword(body), null, body);
    }
  });

  test('surrounding whitespace is ignored', () => {
    assert.equal(classifyKeyword(' Stop! '), 'stop');
    assert.equal(classifyKeyword('\tSTOP\n'), 'stop');
    assert.equal(classifyKeyword('\u00a0start\u00a0'), 'start');
  });

  test('trailing punctuation is ignored, even repeated or after a space', () => {
    assert.equal(classifyKeyword('STOP.'), 'stop');
    assert.equal(classifyKeyword('Stop!!!'), 'stop');
    assert.equal(classifyKeyword('help?'), 'help');
    assert.equal(classifyKeyword('cancel...'), 'stop');
    assert.equal(classifyKeyword('quit!?'), 'stop');
    assert.equal(classifyKeyword('STOP !'), 'stop');
    assert.equal(classifyKeyword('yes…'), 'start');
  });

  test('the keyword must be the whole message, not part of a sentence', () => {
    for (const body of [
      'stop it',
      'please stop',
      'STOP ALL',
      'stop stop',
      'help me',
      'yes please',
    ]) {
      assert.equal(classifyKeyword(body), null, body);
    }
  });

  test('a word that merely begins or ends with a keyword is not one', () => {
    for (const body of ['STOPPED', 'STOPS', 'HELPFUL', 'YESTERDAY', 'RESTART', 'WEEKEND']) {
      assert.equal(classifyKeyword(body), null, body);
    }
  });

  test('a keyword broken by a space is not a keyword', () => {
    assert.equal(classifyKeyword('st op'), null);
    assert.equal(classifyKeyword('UN SUBSCRIBE'), null);
  });

  test('leading punctuation prevents a match', () => {
    for (const body of ['!stop', '.STOP', '"STOP"', '-help', '¿yes?']) {
      assert.equal(classifyKeyword(body), null, body);
    }
  });

  test('punctuation inside the word prevents a match', () => {
    assert.equal(classifyKeyword('S.T.O.P.'), null);
    assert.equal(classifyKeyword('st-op'), null);
  });

  test('a trailing emoji is not punctuation and prevents a match', () => {
    assert.equal(classifyKeyword('STOP 🙂'), null);
  });

  test('lookalike letters that upper-case to ASCII do not match', () => {
    // Long s and dotless i become S and I under toUpperCase().
    assert.equal(classifyKeyword('ſtop'), null);
    assert.equal(classifyKeyword('quıt'), null);
  });

  test('empty, blank or punctuation-only messages are not keywords', () => {
    for (const body of ['', '   ', '!!!', '?']) {
      assert.equal(classifyKeyword(body), null, JSON.stringify(body));
    }
  });
});

describe('confirmation and help texts', () => {
  test('the STOP confirmation tells the recipient how to opt back in', () => {
    assert.match(STOP_CONFIRMATION, /unsubscribed/i);
    assert.match(STOP_CONFIRMATION, /\bSTART\b/);
  });

  test('the START confirmation tells the recipient how to opt out and get help', () => {
    assert.match(START_CONFIRMATION, /\bSTOP\b/);
    assert.match(START_CONFIRMATION, /\bHELP\b/);
    assert.match(START_CONFIRMATION, /rates may apply/i);
  });

  test('the default help reply names the business, opt-out keyword and rates', () => {
    const reply = defaultHelpReply('Acme Plumbing');
    assert.ok(reply.startsWith('Acme Plumbing: '), reply);
    assert.match(reply, /Reply STOP to unsubscribe/);
    assert.match(reply, /Msg&data rates may apply\.$/);
  });

  test('the default help reply trims the name and drops the prefix when it is blank', () => {
    assert.ok(defaultHelpReply('  Acme  ').startsWith('Acme: '));
    assert.ok(defaultHelpReply('   ').startsWith('Reply STOP'));
  });

  test('the fixed texts travel as a single GSM-7 segment', () => {
    for (const text of [STOP_CONFIRMATION, START_CONFIRMATION, defaultHelpReply('Acme')]) {
      assert.deepEqual(
        { encoding: countSegments(text).encoding, segments: countSegments(text).segments },
        { encoding: 'GSM-7', segments: 1 },
        text,
      );
    }
  });

  test('no fixed text is itself a keyword, so an echoed reply cannot change opt-out state', () => {
    for (const text of [STOP_CONFIRMATION, START_CONFIRMATION, defaultHelpReply('Acme')]) {
      assert.equal(classifyKeyword(text), null);
    }
  });
});
