package storetest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/hitl-dev/hitl"
)

func testTemplates(t *testing.T, s hitl.Store) {
	ctx := context.Background()
	if _, err := s.Template(ctx, "deploy"); code(err) != hitl.ENotFound {
		t.Fatalf("unknown template: %v, want not found", err)
	}
	secs := int64(3600)
	deploy := &hitl.Template{Name: "deploy", TemplateRequest: hitl.TemplateRequest{
		InquiryRequest: hitl.InquiryRequest{Prompt: "Deploy {{.version}}?", RequestType: hitl.RequestApproval,
			AssignedTo: hitl.Assignees{"group:sre"}, TimeoutSeconds: &secs, Options: []hitl.Option{{Value: "a", Label: "A"}}},
		VarsSchema: json.RawMessage(`{"type":"object","required":["version"]}`),
	}, CreatedAt: base, UpdatedAt: base, UpdatedBy: "root"}
	put := func(tpl *hitl.Template) (created bool) {
		t.Helper()
		must(t, s.Update(ctx, func(tx hitl.Tx) (err error) { created, err = tx.PutTemplate(tpl); return err }))
		return created
	}
	if !put(deploy) {
		t.Fatal("a new template is not reported created")
	}
	if !put(&hitl.Template{Name: "audit", TemplateRequest: hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Audit?"}},
		CreatedAt: base, UpdatedAt: base, UpdatedBy: "root"}) {
		t.Fatal("a second template is not reported created")
	}
	got, err := s.Template(ctx, "deploy")
	must(t, err)
	if got.Prompt != "Deploy {{.version}}?" || got.RequestType != hitl.RequestApproval || len(got.AssignedTo) != 1 ||
		got.TimeoutSeconds == nil || *got.TimeoutSeconds != 3600 || len(got.Options) != 1 || got.Options[0].Label != "A" ||
		string(got.VarsSchema) != `{"type":"object","required":["version"]}` || !got.CreatedAt.Equal(base) || got.UpdatedBy != "root" {
		t.Fatalf("read back %+v", got)
	}

	// Put replaces the whole template but keeps when it was first made.
	later := base.Add(60e9)
	replaced := &hitl.Template{Name: "deploy", TemplateRequest: hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "Ship {{.version}}?"}},
		CreatedAt: later, UpdatedAt: later, UpdatedBy: "ops"}
	if put(replaced) {
		t.Fatal("replacing a template is reported as creating it")
	}
	if !replaced.CreatedAt.Equal(base) {
		t.Fatalf("PutTemplate set created_at %v, want the first version's %v", replaced.CreatedAt, base)
	}
	got, err = s.Template(ctx, "deploy")
	must(t, err)
	if got.Prompt != "Ship {{.version}}?" || got.RequestType != "" || got.TimeoutSeconds != nil || got.VarsSchema != nil ||
		!got.CreatedAt.Equal(base) || !got.UpdatedAt.Equal(later) || got.UpdatedBy != "ops" {
		t.Fatalf("after replace %+v", got)
	}

	// A put that rolls back leaves the template as it was.
	failed := &hitl.Template{Name: "deploy", TemplateRequest: hitl.TemplateRequest{InquiryRequest: hitl.InquiryRequest{Prompt: "rolled back"}},
		CreatedAt: later, UpdatedAt: later, UpdatedBy: "ops"}
	if err := s.Update(ctx, func(tx hitl.Tx) error {
		if _, err := tx.PutTemplate(failed); err != nil {
			return err
		}
		return hitl.Errorf(hitl.EInvalid, "changed my mind")
	}); code(err) != hitl.EInvalid {
		t.Fatalf("rolled back put: %v", err)
	}
	if got, err := s.Template(ctx, "deploy"); err != nil || got.Prompt != "Ship {{.version}}?" {
		t.Fatalf("after a rolled back put: %+v, %v", got, err)
	}

	list, err := s.Templates(ctx)
	must(t, err)
	if len(list) != 2 || list[0].Name != "audit" || list[1].Name != "deploy" || list[1].Prompt != "Ship {{.version}}?" {
		t.Fatalf("templates by name: %+v", list)
	}
	must(t, s.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteTemplate("deploy") }))
	if _, err := s.Template(ctx, "deploy"); code(err) != hitl.ENotFound {
		t.Fatalf("deleted template: %v, want not found", err)
	}
	if err := s.Update(ctx, func(tx hitl.Tx) error { return tx.DeleteTemplate("deploy") }); code(err) != hitl.ENotFound {
		t.Fatalf("deleting twice: %v, want not found", err)
	}
	if list, err := s.Templates(ctx); err != nil || len(list) != 1 {
		t.Fatalf("after delete: %+v, %v", list, err)
	}
}
