package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io"
	"io/fs"
	"math"
	"net/http"
	"sync"

	"github.com/hitl-dev/hitl"
	"github.com/hitl-dev/hitl/internal/httpwire"
	"github.com/hitl-dev/hitl/internal/strictjson"
	"github.com/hitl-dev/hitl/internal/wording"
)

// The inbox on a phone: an installable web app (a manifest, icons, and a service worker that
// keeps the shell for when the server cannot be reached), web push notifications that a person
// turns on in the page, and the answers of their Approve and Reject buttons. What a device is
// sent, and who may answer through a button, is the engine's (engine/webpush.go).

// themeColour is the inbox's accent, the colour of the installed app's bar and icon.
const themeColour = "#2f5bd3"

// maxActionBody bounds what a service worker posts for a button: a token and an action.
const maxActionBody = 8 << 10

// mountPhone adds the app's and the notifications' routes.
func (h *Handler) mountPhone() {
	h.mux.HandleFunc("GET /manifest.webmanifest", h.manifest)
	h.mux.HandleFunc("GET /sw.js", h.serviceWorker)
	h.mux.HandleFunc("GET /icons/{name}", h.icon)
	h.mux.HandleFunc("POST /push/subscriptions", h.signedIn(h.subscribe))
	h.mux.HandleFunc("POST /push/unsubscribe", h.signedIn(h.unsubscribe))
	h.mux.HandleFunc("POST /push/action", h.pushAction)
	h.mux.HandleFunc("GET /push/action", h.pushActionPage)
}

// manifest is the web app manifest that makes the inbox installable.
func (h *Handler) manifest(w http.ResponseWriter, r *http.Request) {
	type icon struct {
		Src     string `json:"src"`
		Sizes   string `json:"sizes"`
		Type    string `json:"type"`
		Purpose string `json:"purpose,omitempty"`
	}
	m := struct {
		Name            string `json:"name"`
		ShortName       string `json:"short_name"`
		Description     string `json:"description"`
		StartURL        string `json:"start_url"`
		Scope           string `json:"scope"`
		Display         string `json:"display"`
		ThemeColor      string `json:"theme_color"`
		BackgroundColor string `json:"background_color"`
		Icons           []icon `json:"icons"`
	}{
		Name: "hitl inbox", ShortName: "hitl", Description: "Answer what agents ask you.",
		StartURL: "/", Scope: "/", Display: "standalone", ThemeColor: themeColour, BackgroundColor: "#f6f7f9",
		Icons: []icon{
			{Src: "/static/icon.svg", Sizes: "any", Type: "image/svg+xml"},
			{Src: "/icons/icon-192.png", Sizes: "192x192", Type: "image/png"},
			{Src: "/icons/icon-512.png", Sizes: "512x512", Type: "image/png"},
			{Src: "/icons/icon-512.png", Sizes: "512x512", Type: "image/png", Purpose: "maskable"},
		},
	}
	w.Header().Set("Content-Type", "application/manifest+json")
	w.Header().Set("Cache-Control", "no-cache")
	json.NewEncoder(w).Encode(m)
}

// serviceWorker serves the worker at the root, so that its scope is the whole inbox; browsers
// check it for updates at each visit (no-cache).
func (h *Handler) serviceWorker(w http.ResponseWriter, r *http.Request) {
	static, _ := fs.Sub(staticFiles, "static")
	js, err := fs.ReadFile(static, "sw.js")
	if err != nil {
		h.fail(w, r, nil, err)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/javascript; charset=utf-8")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("Service-Worker-Allowed", "/")
	w.Write(js)
}

// iconSizes are the PNG icons the manifest lists.
var iconSizes = map[string]int{"icon-192.png": 192, "icon-512.png": 512}

var (
	iconsOnce sync.Once
	icons     map[string][]byte
)

// icon serves the app's icon as a PNG (home screens and notifications want one), drawn here
// as the SVG icon is: a tick on the accent colour.
func (h *Handler) icon(w http.ResponseWriter, r *http.Request) {
	iconsOnce.Do(func() {
		icons = map[string][]byte{}
		for name, size := range iconSizes {
			var b bytes.Buffer
			png.Encode(&b, drawIcon(size))
			icons[name] = b.Bytes()
		}
	})
	b, ok := icons[r.PathValue("name")]
	if !ok {
		h.errorPage(w, r, nil, http.StatusNotFound, "There is no page here.")
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write(b)
}

// drawIcon draws the icon at size pixels: a square of the accent colour (a maskable icon's
// safe zone is its middle 80 %, so the tick stays within it) with a white tick.
func drawIcon(size int) image.Image {
	img := image.NewRGBA(image.Rect(0, 0, size, size))
	accent := color.RGBA{0x2f, 0x5b, 0xd3, 0xff}
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	s := float64(size) / 512 // the SVG's coordinates
	width := 28 * s          // half the stroke
	// The tick: from (136,268) to (218,350) to (376,162), as in icon.svg.
	segments := [][4]float64{{136, 268, 218, 350}, {218, 350, 376, 162}}
	for y := range size {
		for x := range size {
			px, py := (float64(x)+.5)/s, (float64(y)+.5)/s
			c := accent
			for _, sg := range segments {
				if distance(px, py, sg)*s <= width {
					c = white
				}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// distance is from the point (px, py) to the segment sg (x1, y1, x2, y2).
func distance(px, py float64, sg [4]float64) float64 {
	dx, dy := sg[2]-sg[0], sg[3]-sg[1]
	t := ((px-sg[0])*dx + (py-sg[1])*dy) / (dx*dx + dy*dy)
	t = max(0, min(1, t))
	ex, ey := sg[0]+t*dx-px, sg[1]+t*dy-py
	return math.Hypot(ex, ey)
}

// subscribe serves POST /push/subscriptions: the page's "Turn on notifications" posts the
// browser's subscription (its toJSON(), as a form field with the CSRF token).
func (h *Handler) subscribe(w http.ResponseWriter, r *http.Request, v *viewer) {
	var req hitl.PushSubscriptionRequest
	if err := strictjson.Unmarshal([]byte(r.PostForm.Get("subscription")), &req); err != nil {
		httpwire.WriteProblem(w, r.URL.Path, hitl.Errorf(hitl.EInvalid, "the browser's subscription cannot be read: %s", hitl.ErrorMessage(err)))
		return
	}
	sub, created, err := h.engine.SubscribePush(r.Context(), v.Principal, &req)
	if err != nil {
		httpwire.WriteProblem(w, r.URL.Path, err)
		return
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	httpwire.WriteJSON(w, status, sub)
}

// unsubscribe serves POST /push/unsubscribe: "Turn off notifications" on this device.
func (h *Handler) unsubscribe(w http.ResponseWriter, r *http.Request, v *viewer) {
	err := h.engine.UnsubscribePush(r.Context(), v.Principal, r.PostForm.Get("endpoint"))
	if err != nil && hitl.ErrorCode(err) != hitl.ENotFound { // forgotten already: what was asked
		httpwire.WriteProblem(w, r.URL.Path, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// actionResult is what a button's answer tells the service worker, which shows it in place
// of the notification.
type actionResult struct {
	Title     string      `json:"title"`
	Message   string      `json:"message"`
	InquiryID int64       `json:"inquiry_id"`
	Status    hitl.Status `json:"status"`
}

// pushAction serves POST /push/action: a notification's Approve or Reject, posted by the
// device's service worker with the notification's action token (the token is the credential:
// no session, no cookie). Bad tokens count as failed sign-ins for the address.
func (h *Handler) pushAction(w http.ResponseWriter, r *http.Request) {
	if wait := h.limited(w, r); wait > 0 {
		httpwire.WriteProblem(w, r.URL.Path, hitl.Errorf(hitl.ERateLimited, "%s", tooManyFailures(wait)))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxActionBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		httpwire.WriteProblem(w, r.URL.Path, hitl.Errorf(hitl.ETooLarge, "the action is over %d bytes: a notification's button posts a token and an action only", maxActionBody))
		return
	}
	var req hitl.PushActionRequest
	if err == nil {
		err = strictjson.Unmarshal(body, &req)
	}
	if err != nil {
		httpwire.WriteProblem(w, r.URL.Path, hitl.Errorf(hitl.EInvalid, "the action cannot be read: %s; post {\"token\": ..., \"action\": \"approve\"|\"reject\"}", hitl.ErrorMessage(err)))
		return
	}
	inq, err := h.engine.AnswerPushAction(r.Context(), req.Token, req.Action)
	if err != nil {
		if hitl.ErrorCode(err) == hitl.EUnauthorized {
			h.cfg.AuthLimiter.Fail(r.RemoteAddr)
		}
		httpwire.WriteProblem(w, r.URL.Path, err)
		return
	}
	title := "Approved"
	if req.Action == hitl.PushActionReject {
		title = "Rejected"
	}
	httpwire.WriteJSON(w, http.StatusOK, actionResult{Title: title, Message: short(inq.Prompt, 120) + " (" + wording.Outcome(inq) + ")",
		InquiryID: inq.ID, Status: inq.Status})
}

// pushActionPage serves GET /push/action: opening the address answers nothing (a link
// preview or a prefetch must not); it says so.
func (h *Handler) pushActionPage(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "POST")
	h.errorPage(w, r, nil, http.StatusMethodNotAllowed,
		"Opening this address answers nothing. A notification's Approve and Reject buttons answer from your device; to answer here, open the inquiry in the inbox.")
}
