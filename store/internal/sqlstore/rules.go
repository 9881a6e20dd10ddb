package sqlstore

import (
	"encoding/json"

	"github.com/hitl-dev/hitl"
)

// Rules is the table of standing approvals: each rule is its JSON document (the columns
// beside it are for ordering and for the revocation's condition).
var Rules = Table[*hitl.Rule]{"rules", "doc", "id", "created_at, id", "rule", "rules", scanRule}

func scanRule(_ *Dialect, sc Scanner) (*hitl.Rule, error) {
	var doc string
	if err := sc.Scan(&doc); err != nil {
		return nil, err
	}
	var r hitl.Rule
	if err := json.Unmarshal([]byte(doc), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// RuleDoc is the stored document of a rule (without the count of its matches, which is
// each node's own).
func RuleDoc(r *hitl.Rule) (string, error) {
	stored := *r
	stored.Matched = 0
	doc, err := json.Marshal(&stored)
	return string(doc), err
}
