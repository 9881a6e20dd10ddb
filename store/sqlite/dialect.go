package sqlite

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/hitl-dev/hitl/store/internal/sqlstore"
)

// dialect is how SQLite spells what the stores share: ? placeholders, IN lists of them,
// booleans and times as integers (microseconds since 1970), lists as JSON text.
var dialect = &sqlstore.Dialect{
	Placeholder: func(int) string { return "?" },
	In: func(w *sqlstore.Where, list []string) string {
		w.Args = append(w.Args, sqlstore.Args(list)...)
		return "IN (" + sqlstore.Placeholders(len(list)) + ")"
	},
	True:        func(column string) string { return column + " = 1" },
	False:       func(column string) string { return column + " = 0" },
	Never:       "0",
	FalseColumn: "INTEGER NOT NULL DEFAULT 0",
	Time:        func(t time.Time) any { return micros(t) },
	Bool:        func(b bool) any { return boolInt(b) },
	ScanTime: func(t *time.Time) any {
		return microsDest{func(us int64) { *t = fromMicros(us) }, func() error { return errNullTime }}
	},
	ScanNullTime: func(t **time.Time) any {
		return microsDest{func(us int64) { u := fromMicros(us); *t = &u }, func() error { *t = nil; return nil }}
	},
	ScanList:   func(l *[]string) any { return jsonDest{l} },
	Searchable: func(prompt string) string { return prompt },
	Search:     search,
	// The largest integer: where inquiries without a deadline sort after every deadline.
	Latest:       "9223372036854775807",
	SessionOrder: "s.rowid",
	Err:          dbError,
}

// search finds a text of three characters or more in the index of every three characters of
// each prompt (migration 32), as one phrase: its characters in a row, which is the text as a
// substring, in any case (the trigram tokenizer folds the case of every letter). A shorter
// text holds no three characters to look up, and is a scan of every prompt: LIKE, which folds
// only ASCII letters, of each way of writing its other letters in another case, so that it
// matches as the index does.
//
// The index is joined, not asked for a list of ids: FTS5 then hands out the inquiries that
// match newest first, and a page stops reading it once full (a list of ids would be every
// inquiry that matches, a tenth of them for a word that one in ten holds).
func search(w *sqlstore.Where, text string) (join, cond string) {
	if utf8.RuneCountInString(text) >= 3 {
		phrase := `"` + strings.ReplaceAll(text, `"`, `""`) + `"`
		return "inquiry_search s", "s.inquiry_search MATCH " + w.Arg(phrase)
	}
	var likes []string
	for _, v := range caseVariants(text) {
		likes = append(likes, "i.prompt LIKE "+w.Arg(sqlstore.LikePattern(v))+` ESCAPE '\'`)
	}
	return "", "(" + strings.Join(likes, " OR ") + ")"
}

// caseVariants are text written with each of its letters beyond ASCII in each of its cases
// (Unicode's simple case folding): for a text of a few characters, a few variants.
func caseVariants(text string) []string {
	out := []string{""}
	for _, r := range text {
		forms := []rune{r}
		if r >= utf8.RuneSelf {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				forms = append(forms, f)
			}
		}
		var next []string
		for _, prefix := range out {
			for _, f := range forms {
				next = append(next, prefix+string(f))
			}
		}
		out = next
	}
	return out
}

var errNullTime = errors.New("a time column is NULL")

// microsDest reads a time column (microseconds since 1970) by set, or a NULL by null.
type microsDest struct {
	set  func(us int64)
	null func() error
}

func (m microsDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		return m.null()
	case int64:
		m.set(v)
		return nil
	}
	return fmt.Errorf("a time column holds %T", src)
}

// jsonDest reads a column of a JSON list of strings.
type jsonDest struct{ l *[]string }

func (j jsonDest) Scan(src any) error {
	switch v := src.(type) {
	case string:
		return json.Unmarshal([]byte(v), j.l)
	case []byte:
		return json.Unmarshal(v, j.l)
	}
	return fmt.Errorf("a list column holds %T", src)
}
